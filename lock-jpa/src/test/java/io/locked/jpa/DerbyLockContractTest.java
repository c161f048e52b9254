package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import java.util.Map;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The lock contract on embedded Apache Derby, which has no native statements: the default
 * ({@code locked.statements=auto}) locks through JPA, on a table the provider generated from
 * {@link LockRow}. Derby bounds lock waits by {@code derby.locks.waitTimeout} (set to a second here).
 * Six tests cannot run on Derby, each for a reason of Derby's own ({@link DerbyLimits}); the
 * other databases run them.
 */
@ExtendWith(DerbyLockContractTest.DerbyLimits.class)
class DerbyLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.DERBY;
    }

    @Override
    public boolean readsPessimisticRows() {
        return false;
    }

    @Override
    public boolean readsPessimisticRowsForReadWrite() {
        return false;
    }

    @Override
    protected void endSessionsInTransaction() {
        throw new UnsupportedOperationException("embedded Derby cannot end another session");
    }

    /** Disables, before they start, the tests that Derby cannot run, saying why. */
    static final class DerbyLimits implements ExecutionCondition {
        private static final Map<String, String> REASONS = Map.of(
                "aPessimisticHolderLearnsThatItsSessionEnded",
                "embedded Derby has no way to end another session",
                "keysThatDifferOnlyByTrailingSpacesOrCaseAreSeparateLocks",
                "Derby compares VARCHAR keys padded with spaces (the SQL standard's PAD SPACE): 'k' and 'k ' are one lock there",
                "cleanupDeletesIdleFreeRowsOnlyAndTokensKeepIncreasing",
                "Derby's reads wait for row locks, so a cleanup's scan waits behind a held row and gives up",
                "inspectionShowsAPessimisticHolderOfAnotherManagerAndAReleasedKeyAsFree",
                "Derby's reads wait for row locks, so reading a row held PESSIMISTIC waits out derby.locks.waitTimeout"
                        + " and fails as store unavailable",
                "theNamedKeysAreInspectedInOneLookAndNoOtherKey",
                "Derby's reads wait for row locks, so reading named keys, one of them held PESSIMISTIC, waits out"
                        + " derby.locks.waitTimeout and fails as store unavailable",
                "aForcedReleaseEndsAPessimisticHoldersSessionAndTheOldHolderLearnsItLostIt",
                "Derby's reads wait for row locks, so the forced release cannot read a row held PESSIMISTIC (and the"
                        + " JPA path could not end its session anyway)");

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            String reason = context.getTestMethod().map(method -> REASONS.get(method.getName())).orElse(null);
            return reason == null ? ConditionEvaluationResult.enabled("Derby runs it")
                    : ConditionEvaluationResult.disabled("Derby: " + reason);
        }
    }
}
