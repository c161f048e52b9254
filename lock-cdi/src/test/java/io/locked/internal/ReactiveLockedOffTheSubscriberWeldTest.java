package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertNotSame;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.Locked;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.Test;

/**
 * A {@code Uni} subscribed off any event loop runs its method on the thread that got the lock, never on its
 * subscriber's, even when the lock was got before the call chained what comes next. The manager here gets
 * each lock on a thread of its own and returns only once it is got, so that the lock always comes first: the
 * case that a fast acquisition of a free key makes now and then. Seen failing when the call chained its method
 * to {@code acquireAsync}'s stage: the method ran on the subscriber's thread, inside its subscription.
 */
@EnableWeld
class ReactiveLockedOffTheSubscriberWeldTest {
    /** Runs each acquisition on a new thread and returns once it ended. */
    private static final Executor LOCK_COMES_FIRST = task -> {
        Thread acquirer = new Thread(task, "acquirer");
        acquirer.start();
        try {
            acquirer.join();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    };

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, Manager.class, Where.class))
            .build();

    @Inject
    Where where;

    static class Manager {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            return new InMemoryLockRepository();
        }

        @Produces
        @ApplicationScoped
        LockManager manager(LockRepository repository) {
            return LockManagerBuilder.on(repository).asyncExecutor(LOCK_COMES_FIRST).build();
        }

        void close(@Disposes LockManager manager) {
            manager.close();
        }
    }

    @ApplicationScoped
    static class Where {
        @Locked("where")
        Uni<Thread> ranOn() {
            return Uni.createFrom().item(Thread.currentThread());
        }
    }

    @Test
    void aUniWhoseLockCameFirstRunsItsMethodOffItsSubscribersThread() throws Exception {
        Thread subscriber = Thread.currentThread();
        Thread ranOn = where.ranOn().subscribeAsCompletionStage().get(30, TimeUnit.SECONDS);
        assertNotSame(subscriber, ranOn, "the method ran on its subscriber's thread");
    }
}
