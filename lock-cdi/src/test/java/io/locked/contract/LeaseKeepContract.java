package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.internal.DefaultLockManager;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/**
 * A lease kept after its release for its manager's next take of the key ({@link LockManagerBuilder#keepLeasesFor}),
 * on every store of the contract suite: that take passes it on in one statement with a higher token; the key
 * stays taken for other managers meanwhile, and is free once the keep ends or the manager closes; a kept lease
 * an operator ended is taken anew; and threads of two managers that keep leases exclude each other (history
 * checker, an unguarded counter).
 */
public interface LeaseKeepContract {
    /** @return the store under test, its table in place */
    LockRepository inspectedStore();

    /**
     * A manager that keeps released leases a minute, to see the keep (past the builder's bound, through the
     * manager itself): what is checked does not depend on the keep's length.
     */
    private static LockManager keepingAMinute(LockRepository store) {
        LockManager manager = LockManagerBuilder.on(store).build();
        ((DefaultLockManager) manager).passKeysOn(LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN, Duration.ofMinutes(1));
        return manager;
    }

    /** A lease that outlives a minute's keep: one that might run out within its keep is released, not kept. */
    private static LockRequest optimistic(String key) {
        return LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofMinutes(5));
    }

    @Test
    default void aKeptLeaseIsPassedToItsManagersNextTakeInOneStatementAndFreedWhenTheManagerCloses() {
        String key = "keep:passed:" + UUID.randomUUID();
        Calls calls = new Calls(inspectedStore());
        try (LockManager others = LockManagerBuilder.on(inspectedStore()).build()) {
            LockManager jvm = keepingAMinute(calls);
            try {
                long first;
                try (LockHandle held = jvm.acquire(optimistic(key))) {
                    first = held.token();
                }
                assertEquals(List.of("take"), calls.made(), "the release was kept: no statement");
                LockInfo kept = others.inspect(key);
                assertTrue(kept.held(), "the kept lease holds the key for the others: " + kept);
                assertTrue(others.tryAcquire(optimistic(key)).isEmpty(), "another manager finds the key taken");
                try (LockHandle again = jvm.acquire(optimistic(key))) {
                    assertTrue(again.token() > first, "the next holder's token is above the last: " + again.token()
                            + " after " + first);
                    assertTrue(again.isValid());
                    assertEquals(again.token(), others.inspect(key).token().orElseThrow(), "the row shows the new holder's token");
                }
                assertEquals(List.of("take", "hand-over"), calls.made(), "one statement for the release and the take");
            } finally {
                jvm.close();
            }
            assertEquals(List.of("take", "hand-over", "release"), calls.made(), "the close released the kept lease");
            assertFalse(others.inspect(key).held(), "the key is free once the manager closed");
        }
    }

    @Test
    default void aKeptLeaseIsReleasedWhenItsKeepEnds() throws Exception {
        String key = "keep:ends:" + UUID.randomUUID();
        Calls calls = new Calls(inspectedStore());
        try (LockManager jvm = LockManagerBuilder.on(calls).keepLeasesFor(Duration.ofMillis(20)).build();
             LockManager others = LockManagerBuilder.on(inspectedStore()).build()) {
            jvm.acquire(optimistic(key)).close();
            // waits for the keep's end, as long as the machine needs: the key comes free with the manager still open
            try (LockHandle next = others.acquire(optimistic(key).maxWait(Duration.ofSeconds(30)))) {
                assertTrue(next.isValid());
            }
            assertEquals(List.of("take", "release"), calls.made(), "the keep's end sent the release");
        }
    }

    @Test
    default void aKeptLeaseThatAnOperatorEndedIsTakenAnew() {
        String key = "keep:forced:" + UUID.randomUUID();
        Calls calls = new Calls(inspectedStore());
        LockManager jvm = keepingAMinute(calls);
        try (LockManager operator = LockManagerBuilder.on(inspectedStore()).build()) {
            long first;
            try (LockHandle held = jvm.acquire(optimistic(key))) {
                first = held.token();
            }
            assertTrue(operator.forceRelease(key).isPresent(), "the operator ended the kept lease");
            try (LockHandle again = jvm.acquire(optimistic(key))) {
                assertTrue(again.isValid());
                assertTrue(again.token() > first, "a higher token: " + again.token() + " after " + first);
            }
            assertEquals(List.of("take", "hand-over", "take"), calls.made(),
                    "the hand-over found the lease ended, and the key was taken anew");
        } finally {
            jvm.close();
        }
    }

    /**
     * Two managers that keep leases, two threads each, cycling on one key: no two sections overlap, tokens
     * rise in the order of the sections, and the unguarded counter loses nothing.
     */
    @Test
    default void threadsOfTwoManagersKeepingLeasesExcludeEachOther() throws Exception {
        List<LockManager> managers = List.of(
                LockManagerBuilder.on(inspectedStore()).keepLeasesFor(Duration.ofMillis(5)).build(),
                LockManagerBuilder.on(inspectedStore()).keepLeasesFor(Duration.ofMillis(5)).build());
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            ThreadsOnOneKey.assertExclusion(managers, "keep:threads:" + UUID.randomUUID(), LockMode.OPTIMISTIC, threads, 2,
                    20, Duration.ofSeconds(60), Duration.ofMinutes(5));
        } finally {
            threads.shutdownNow();
            managers.forEach(LockManager::close);
        }
    }

    /** The store, with the lease calls it was asked for, in order. */
    final class Calls extends DelegatingRepository {
        private final List<String> made = new ArrayList<>();

        public Calls(LockRepository store) {
            super(store);
        }

        public synchronized List<String> made() {
            return List.copyOf(made);
        }

        private synchronized void made(String call) {
            made.add(call);
        }

        @Override
        public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
            made("take");
            return super.takeLease(key, owner, holder, lease, dbWait);
        }

        @Override
        public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
            made("hand-over");
            return super.handOverLease(lease, newOwner, holder, duration);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            made("release");
            return super.releaseLease(lease);
        }

        @Override
        public boolean releaseLease(Lease lease, Duration holdAtLeast) {
            made("release, holding on");
            return super.releaseLease(lease, holdAtLeast);
        }
    }
}
