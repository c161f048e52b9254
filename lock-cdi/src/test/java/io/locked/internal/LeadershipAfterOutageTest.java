package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockManager;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.internal.base.LockMetrics;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
    private final List<Told> history = new ArrayList<>();

    private record Told(int candidate, boolean granted, long term) {
    }

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

    private LeadershipListener listener(int candidate) {
        return new LeadershipListener() {
            @Override
            public void granted(Leadership leadership, long term) {
                synchronized (history) {
                    history.add(new Told(candidate, true, term));
                }
            }

            @Override
            public void lost(Leadership leadership, long term, String reason) {
                synchronized (history) {
                    history.add(new Told(candidate, false, term));
                }
            }
        };
    }

    private List<Told> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    private void campaign(int candidates) {
        for (int i = 0; i < candidates; i++) {
            this.candidates.add(manager().campaign("scheduler", LEASE, listener(i)));
        }
    }

    private long grants() {
        return history().stream().filter(Told::granted).count();
    }

    /**
     * The store comes back as soon as it has let the old term's lease run out: the moment a new term can
     * begin. The clock jumps only until the leader's own count of its term ends (what {@code isLeader()}
     * shows); from there it runs at its real pace, as the leader's check of its term does.
     */
    @Test
    void backJustAfterTheLeaseTheOldLeaderIsToldBeforeANewTermBegins() throws InterruptedException {
        campaign(3);
        awaitThat(() -> grants() == 1, "a first leader");
        Leadership leader = candidates.get(history().get(0).candidate());

        storeDown.set(true);
        while (leader.isLeader()) {
            time.advance(100, TimeUnit.MILLISECONDS);
        }
        awaitThat(() -> !rows.holds("scheduler"), "the role's lease ran out in the store");
        storeDown.set(false);

        awaitThat(() -> grants() == 2, "a second term");
        awaitOneLeader();
        checkHistory();
    }

    @Test
    void anOutageOfManyLeasesEndsWithOneLeader() throws InterruptedException {
        campaign(3);
        awaitThat(() -> grants() == 1, "a first leader");

        storeDown.set(true);
        time.advance(LEASE.toMillis() + 100, TimeUnit.MILLISECONDS);
        awaitThat(() -> !history().get(history().size() - 1).granted(), "the leader told its term ended");
        time.advance(4 * LEASE.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(candidates.stream().noneMatch(Leadership::isLeader), "nobody leads while the store is down");
        storeDown.set(false);

        awaitThat(() -> grants() == 2, "a term after the outage");
        awaitOneLeader();
        checkHistory();
    }

    /** Exactly one leads, and it is the one last granted a term, with that term. */
    private void awaitOneLeader() throws InterruptedException {
        awaitThat(() -> candidates.stream().filter(Leadership::isLeader).count() == 1, "exactly one leader");
        List<Told> told = history();
        Told last = told.get(told.size() - 1);
        assertTrue(last.granted(), "the last word is a grant: " + told);
        Leadership leader = candidates.get(last.candidate());
        assertTrue(leader.isLeader(), told.toString());
        assertEquals(last.term(), leader.term().getAsLong());
        assertEquals(1, candidates.stream().filter(Leadership::isLeader).count(), told.toString());
    }

    /** Terms rise, and no term is granted while an earlier one has not been told it ended. */
    private void checkHistory() {
        List<Told> told = history();
        Set<Long> running = new HashSet<>();
        long lastTerm = 0;
        for (Told event : told) {
            if (event.granted()) {
                assertTrue(running.isEmpty(), "term " + event.term() + " began while " + running + " had not been told"
                        + " it ended: " + told);
                assertTrue(event.term() > lastTerm, "terms rise: " + told);
                lastTerm = event.term();
                running.add(event.term());
            } else {
                assertTrue(running.remove(event.term()), "told the end of a term not running: " + told);
            }
        }
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
