package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.Leadership;
import io.locked.api.LockManager;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.contract.TermsTold;
import io.locked.internal.base.LockMetrics;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three managers stand for three JVMs campaigning for one role; the store becomes unreachable for all
 * of them for longer than the role's lease, then answers again. Afterwards exactly one leads, terms'
 * tokens rise, and every earlier leader was told it lost the role before any new term began: checked
 * on one history of what the listeners were told, in the order they were told it. The lease runs out
 * on a clock the test moves, the same for the store and the managers.
 */
class LeadershipAfterOutageTest {
    private static final Duration LEASE = Duration.ofSeconds(30);
    private final ShiftableTime time = new ShiftableTime();
    private final InMemoryLockRepository rows = new InMemoryLockRepository(time::nanoTime);
    private final AtomicBoolean storeDown = new AtomicBoolean();
    private final List<LockManager> managers = new ArrayList<>();
    private final List<Leadership> candidates = new ArrayList<>();
    private final TermsTold told = new TermsTold();

    @AfterEach
    void close() {
        candidates.forEach(Leadership::close);
        managers.forEach(LockManager::close);
    }

    private LockManager manager() {
        LockManager manager = new DefaultLockManager(new DelegatingRepository(rows) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                failIfDown(key);
                return super.takeLease(key, owner, holder, lease, dbWait);
            }

            @Override
            public Lease renewLease(Lease lease, Duration duration) {
                failIfDown(lease.key());
                return super.renewLease(lease, duration);
            }

            @Override
            public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
                failIfDown(lease.key());
                return super.handOverLease(lease, newOwner, holder, duration);
            }

            @Override
            public boolean releaseLease(Lease lease) {
                failIfDown(lease.key());
                return super.releaseLease(lease);
            }

            @Override
            public boolean releaseLease(Lease lease, Duration holdAtLeast) {
                failIfDown(lease.key());
                return super.releaseLease(lease, holdAtLeast);
            }
        }, time, 1, Duration.ofSeconds(5), LockMetrics.NONE);
        managers.add(manager);
        return manager;
    }

    private void failIfDown(String key) {
        if (storeDown.get()) {
            throw new LockStoreUnavailableException(key, "the database does not answer", null);
        }
    }

    private void campaign(int candidates) {
        for (int i = 0; i < candidates; i++) {
            this.candidates.add(manager().campaign("scheduler", LEASE, told.listener(i)));
        }
    }

    /**
     * The store comes back as soon as it has let the old term's lease run out: the moment a new term can
     * begin. The clock jumps only until the leader's own count of its term ends (what {@code isLeader()}
     * shows); from there it runs at its real pace, as the leader's check of its term does.
     */
    @Test
    void backJustAfterTheLeaseTheOldLeaderIsToldBeforeANewTermBegins() throws InterruptedException {
        campaign(3);
        awaitThat(() -> told.grants() == 1, "a first leader");
        Leadership leader = candidates.get(told.history().get(0).candidate());

        storeDown.set(true);
        while (leader.isLeader()) {
            time.advance(100, TimeUnit.MILLISECONDS);
        }
        awaitThat(() -> !rows.holds("scheduler"), "the role's lease ran out in the store");
        storeDown.set(false);

        awaitThat(() -> told.grants() == 2, "a second term");
        awaitOneLeader();
        told.check();
    }

    @Test
    void anOutageOfManyLeasesEndsWithOneLeader() throws InterruptedException {
        campaign(3);
        awaitThat(() -> told.grants() == 1, "a first leader");

        storeDown.set(true);
        time.advance(LEASE.toMillis() + 100, TimeUnit.MILLISECONDS);
        awaitThat(() -> !told.last().granted(), "the leader told its term ended");
        time.advance(4 * LEASE.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(candidates.stream().noneMatch(Leadership::isLeader), "nobody leads while the store is down");
        storeDown.set(false);

        awaitThat(() -> told.grants() == 2, "a term after the outage");
        awaitOneLeader();
        told.check();
    }

    /** Exactly one leads, and it is the one last granted a term, with that term. */
    private void awaitOneLeader() throws InterruptedException {
        awaitThat(() -> candidates.stream().filter(Leadership::isLeader).count() == 1, "exactly one leader");
        TermsTold.Told last = told.last();
        assertTrue(last.granted(), "the last word is a grant: " + told.history());
        Leadership leader = candidates.get(last.candidate());
        assertTrue(leader.isLeader(), told.history().toString());
        assertEquals(last.term(), leader.term().getAsLong());
        assertEquals(1, candidates.stream().filter(Leadership::isLeader).count(), told.history().toString());
    }

    private static void awaitThat(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60); // a bound for a hung test, not a measure
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not reached within 60 s: " + what);
            }
            Thread.sleep(5);
        }
    }
}
