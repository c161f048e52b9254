package io.locked.internal;

import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.Locked;
import io.locked.contract.VirtualThreadCrowd;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Duration;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@code @Locked} called from 10,000 virtual threads on Weld: {@link VirtualThreadWaitersTest}'s promises. */
@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads came with Java 21")
class VirtualThreadWaitersWeldTest {
    private WeldContainer application;

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new InMemoryLockRepository();
        }
    }

    @ApplicationScoped
    static class Reports {
        @Locked(value = "reports:PESSIMISTIC", maxWait = "10m")
        void pessimistic(Runnable criticalSection) {
            criticalSection.run();
        }

        @Locked(value = "reports:OPTIMISTIC", mode = LockMode.OPTIMISTIC, maxWait = "10m")
        void optimistic(Runnable criticalSection) {
            criticalSection.run();
        }
    }

    @BeforeEach
    void start() {
        application = new Weld("locked-virtual-threads").disableDiscovery()
                .addExtension(new LockedExtension())
                .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        Infrastructure.class, Reports.class)
                .initialize();
    }

    @AfterEach
    void stop() {
        application.shutdown();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void tenThousandVirtualThreadsCallingALockedMethodAreServedOneAtATime(LockMode mode) throws Exception {
        LockManager locks = application.select(LockManager.class).get();
        Reports reports = application.select(Reports.class).get();
        VirtualThreadCrowd.Waiter call = mode == LockMode.PESSIMISTIC ? reports::pessimistic : reports::optimistic;
        // the same key and mode as the method's: this thread holds it while the crowd gathers
        LockRequest request = LockRequest.of("reports:" + mode).mode(mode).maxWait(Duration.ofMinutes(10));
        VirtualThreadCrowd.Outcome small = VirtualThreadCrowd.blocking(locks, request, 1_000, call);
        VirtualThreadCrowd.Outcome large = VirtualThreadCrowd.blocking(locks, request, 10_000, call);
        VirtualThreadCrowd.assertServedInConstantMemory("Weld, @Locked, " + mode, small, large);
    }
}
