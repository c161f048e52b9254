package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.locked.contract.Await;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.spi.LockRepository;
import io.locked.testing.InMemoryLockRepository;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.Cancellable;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.junit5.EnableWeld;
import org.jboss.weld.junit5.WeldInitiator;
import org.jboss.weld.junit5.WeldSetup;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked} on methods that must not block their caller: a {@code Uni} is locked when subscribed and
 * held until it terminates (completes, fails or is cancelled), and a stage method called on a Vert.x event
 * loop returns at once and runs on its caller's context once the lock is held. Each "returns at once" is
 * checked while another holder has the key, so a blocked caller could not have returned.
 */
@EnableWeld
class ReactiveLockedWeldTest {
    private static InMemoryLockRepository STORE; // a fresh one per test: one container per test produces it

    @WeldSetup
    WeldInitiator weld = WeldInitiator.from(new Weld()
            .disableDiscovery()
            .addExtension(new LockedExtension())
            .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                    Infrastructure.class, Reactive.class))
            .build();

    @Inject
    Reactive reactive;
    @Inject
    LockManager locks;

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void closeVertx() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @ApplicationScoped
    static class Infrastructure {
        @Produces
        @ApplicationScoped
        LockRepository repository() {
            STORE = new InMemoryLockRepository();
            return STORE;
        }
    }

    @ApplicationScoped
    static class Reactive {
        final AtomicInteger runs = new AtomicInteger();
        final AtomicReference<CompletableFuture<String>> work = new AtomicReference<>();
        final AtomicReference<Context> ranOn = new AtomicReference<>();

        // read through the client proxy, which has the bean's methods but not its fields
        int runs() {
            return runs.get();
        }

        CompletableFuture<String> work() {
            return work.get();
        }

        void forgetWork() {
            work.set(null);
        }

        Context ranOn() {
            return ranOn.get();
        }

        @Locked(value = "uni", maxWait = "5m")
        Uni<String> uni() {
            runs.incrementAndGet();
            ranOn.set(Vertx.currentContext());
            CompletableFuture<String> mine = new CompletableFuture<>();
            work.set(mine);
            return Uni.createFrom().completionStage(mine);
        }

        @Locked(value = "uni", maxWait = "0s", onTimeout = OnTimeout.SKIP)
        Uni<Void> skippable() {
            runs.incrementAndGet();
            return Uni.createFrom().voidItem();
        }

        @Locked(value = "uni", maxWait = "0s")
        Uni<String> busy() {
            runs.incrementAndGet();
            return Uni.createFrom().item("ran");
        }

        @Locked(value = "stage", maxWait = "5m")
        CompletionStage<String> stage() {
            runs.incrementAndGet();
            ranOn.set(Vertx.currentContext());
            return CompletableFuture.completedFuture("staged");
        }
    }

    @Test
    void aUniIsLockedWhenSubscribedAndHeldUntilItCompletes() throws Exception {
        Uni<String> uni = reactive.uni();
        assertEquals(0, reactive.runs(), "nothing runs before the subscription");
        CompletableFuture<String> outcome;
        try (LockHandle other = locks.acquire(LockRequest.of("uni"))) {
            outcome = uni.subscribeAsCompletionStage();
            assertFalse(outcome.isDone());
            assertEquals(0, reactive.runs(), "the method runs only once the lock is held");
        }
        Await.until(() -> reactive.work() != null, Duration.ofSeconds(30), "the method runs once the other holder left");
        assertTrue(STORE.holds("uni"), "held while the Uni runs");
        reactive.work().complete("done");
        assertEquals("done", outcome.get(30, TimeUnit.SECONDS));
        assertFalse(STORE.holds("uni"), "released when the Uni completed");
    }

    @Test
    void aCancelledUniReleasesItsLockAndACancelledWaitNeverRunsTheMethod() throws Exception {
        Cancellable running = reactive.uni().subscribe().with(item -> { }, failure -> { });
        Await.until(() -> reactive.work() != null, Duration.ofSeconds(30), "the method runs");
        assertTrue(STORE.holds("uni"));
        running.cancel();
        Await.until(() -> !STORE.holds("uni"), Duration.ofSeconds(30), "the cancelled Uni's lock is released");

        reactive.forgetWork();
        try (LockHandle other = locks.acquire(LockRequest.of("uni"))) {
            Cancellable waiting = reactive.uni().subscribe().with(item -> { }, failure -> { });
            waiting.cancel();
        }
        // the key is free again: a new holder gets it at once, so the cancelled wait holds nothing
        try (LockHandle next = locks.acquire(LockRequest.of("uni").maxWait(Duration.ofSeconds(30)))) {
            assertTrue(next.isValid());
        }
        assertNull(reactive.work(), "the cancelled wait never ran the method");
    }

    @Test
    void aBusyUniIsSkippedWithANullItemOrFailsWithTheBlockingCallsException() throws Exception {
        try (LockHandle other = locks.acquire(LockRequest.of("uni"))) {
            assertNull(reactive.skippable().subscribeAsCompletionStage().get(30, TimeUnit.SECONDS));
            Throwable failure = reactive.busy().subscribeAsCompletionStage().handle((item, thrown) -> thrown)
                    .get(30, TimeUnit.SECONDS);
            assertInstanceOf(LockNotAcquiredException.class, failure);
        }
        assertEquals(0, reactive.runs(), "neither method ran");
    }

    @Test
    void aStageMethodCalledOnAnEventLoopReturnsAtOnceAndRunsOnItsCallersContext() throws Exception {
        Context context = vertx.getOrCreateContext();
        CompletableFuture<CompletionStage<String>> returned = new CompletableFuture<>();
        try (LockHandle other = locks.acquire(LockRequest.of("stage"))) {
            context.runOnContext(ignored -> returned.complete(reactive.stage()));
            CompletionStage<String> stage = returned.get(30, TimeUnit.SECONDS); // the key is still held here
            assertFalse(stage.toCompletableFuture().isDone());
            assertEquals(0, reactive.runs());
            other.close();
            assertEquals("staged", stage.toCompletableFuture().get(30, TimeUnit.SECONDS));
        }
        assertSame(context, reactive.ranOn(), "the method ran on its caller's context, once the lock was held");
        assertFalse(STORE.holds("stage"));
    }

    @Test
    void aUniSubscribedOnAnEventLoopRunsOnThatContext() throws Exception {
        Context context = vertx.getOrCreateContext();
        CompletableFuture<CompletableFuture<String>> subscribed = new CompletableFuture<>();
        try (LockHandle other = locks.acquire(LockRequest.of("uni"))) {
            context.runOnContext(ignored -> subscribed.complete(reactive.uni().subscribeAsCompletionStage()));
            assertFalse(subscribed.get(30, TimeUnit.SECONDS).isDone(), "the event loop was not blocked by the wait");
        }
        Await.until(() -> reactive.work() != null, Duration.ofSeconds(30), "the method runs");
        assertSame(context, reactive.ranOn());
        reactive.work().complete("done");
        assertEquals("done", subscribed.get().get(30, TimeUnit.SECONDS));
    }
}
