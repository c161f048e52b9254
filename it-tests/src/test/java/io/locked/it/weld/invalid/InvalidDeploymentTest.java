package io.locked.it.weld.invalid;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.it.weld.LockedDeployment;
import io.locked.it.weld.TestConfig;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each misuse of @Locked stops the container from booting, with a message naming class, method and member. */
class InvalidDeploymentTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    @Test
    void unknownTemplateParameter() {
        refused(UnknownParameterBean.class, "Invalid @Locked.key on " + UnknownParameterBean.class.getName() + "#ship()",
                "{orderid}", "names no parameter");
    }

    @Test
    void badDuration() {
        refused(BadDurationBean.class, "Invalid @Locked.maxWait on " + BadDurationBean.class.getName() + "#report()",
                "'5 parsecs' is not a duration");
    }

    @Test
    void durationsTooLargeToRepresentAndALeaseOverAYear() {
        String bean = OverflowingDurationBean.class.getName();
        refused(OverflowingDurationBean.class,
                "Invalid @Locked.maxWait on " + bean + "#report(): '9999999999999999d' is too large a duration",
                "Invalid @Locked.lease on " + bean + "#job(): '99999999999999999us' is too large a duration",
                "Invalid @Locked.lease on " + bean + "#forever(): must be at most 365 days, was 400d");
    }

    @Test
    void zeroLease() {
        refused(ZeroLeaseBean.class, "Invalid @Locked.lease on " + ZeroLeaseBean.class.getName() + "#job()",
                "must be at least 1ms, was 0s");
    }

    @Test
    void negativeMinimumHold() {
        refused(NegativeHoldBean.class, NegativeHoldBean.class.getName() + "#job()", "must be zero or positive, was PT-1S");
    }

    @Test
    void skipOnAMethodThatMustReturnAValue() {
        refused(SkipOnValueBean.class, "Invalid @Locked.onTimeout on " + SkipOnValueBean.class.getName() + "#count()",
                "SKIP needs a method returning void, Void, Optional, CompletionStage<Void> or Uni<Void>, but it returns int");
    }

    @Test
    void privateMethod() {
        refused(PrivateMethodBean.class, "Invalid @Locked on " + PrivateMethodBean.class.getName() + "#secret()",
                "a private method cannot be intercepted");
    }

    @Test
    void finalMethod() {
        refused(FinalMethodBean.class, "Invalid @Locked on " + FinalMethodBean.class.getName() + "#fixed()",
                "a final method cannot be intercepted; remove final from the method");
    }

    @Test
    void staticMethod() {
        refused(StaticMethodBean.class, "Invalid @Locked on " + StaticMethodBean.class.getName() + "#util()",
                "a static method cannot be intercepted");
    }

    @Test
    void unknownModeFromConfig() {
        String property = "locked.\"" + ModeFromConfigBean.class.getName() + "/run\".mode";
        TestConfig.set(property, "exclusive");
        refused(ModeFromConfigBean.class, "Invalid @Locked.mode on " + ModeFromConfigBean.class.getName() + "#run()",
                "from config " + property, "unknown value 'exclusive', expected one of [pessimistic, optimistic]");
    }

    @Test
    void keyAndValueDisagree() {
        refused(BothKeysBean.class, "Invalid @Locked.key on " + BothKeysBean.class.getName() + "#run()",
                "set value or key, not both");
    }

    @Test
    void asyncResultsTheLockCannotFollow() {
        String cannot = "Locked cannot hold the lock until it ends";
        refused(AsyncResultBeans.FutureBean.class, "Invalid @Locked on " + AsyncResultBeans.FutureBean.class.getName()
                + "#submit()", "java.util.concurrent.Future<java.lang.String>", cannot);
        refused(AsyncResultBeans.OwnStageBean.class, "Invalid @Locked on " + AsyncResultBeans.OwnStageBean.class.getName()
                + "#start()", "OwnStage", cannot);
        refused(AsyncResultBeans.PublisherBean.class, "Invalid @Locked on " + AsyncResultBeans.PublisherBean.class.getName()
                + "#stream()", "java.util.concurrent.Flow$Publisher", cannot);
    }

    @Test
    void permitsOutOfRange() {
        refused(BadPermitsBean.class, "Invalid @Locked.permits on " + BadPermitsBean.class.getName() + "#render()",
                "must be 0 (an exclusive lock) or 1 to 100, was -1");
    }

    @Test
    void aMinimumHoldOrLockDelayOnARead() {
        String bean = HoldOnReadBean.class.getName();
        refused(HoldOnReadBean.class,
                "Invalid @Locked.holdAtLeast on " + bean + "#report(): needs type EXCLUSIVE or WRITE, was READ",
                "Invalid @Locked.lockDelay on " + bean + "#audit(): needs type EXCLUSIVE or WRITE, was READ");
    }

    @Test
    void permitsOnAReadWriteLock() {
        refused(PermitsWithReadBean.class, "Invalid @Locked.permits on " + PermitsWithReadBean.class.getName() + "#read()",
                "permits need type EXCLUSIVE, was READ");
    }

    @Test
    void keyPartThatRendersADifferentKeyPerInstance() {
        refused(IdentityKeyBean.class, "Invalid @Locked.key on " + IdentityKeyBean.class.getName() + "#ship()",
                "{order}", "does not override toString()");
    }

    private static void refused(Class<?> bean, String... expected) {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> {
            try (WeldContainer ignored = LockedDeployment.with(bean).initialize()) {
                // booted: the misuse went unnoticed
            }
        }, "the container booted with " + bean.getSimpleName());
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        for (String part : expected) {
            assertTrue(messages.toString().contains(part), "expected <" + part + "> in:\n" + messages);
        }
    }
}
