package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockStoreUnavailableException;
import io.locked.contract.DelegatingRepository;
import io.locked.spi.Lease;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two managers on one store stand for two JVMs campaigning for one role: one leads at a time, a
 * closed leader hands the role on at once, a leader cut off from the store learns it lost the role
 * (even while its release hangs) and the other takes over with a higher term. (Real JVMs, kill -9,
 * SIGSTOP and a cut network: LeadershipAcrossJvmsTest.)
 */
class LeadershipTest {
    private static final Duration LEASE = Duration.ofMillis(600);
    private final InMemoryLockRepository store = new InMemoryLockRepository();
    private volatile boolean firstCutOff;
    /** Whether, while the first is cut off, its releases hang until it reconnects, as where packets are dropped. */
    private volatile boolean firstReleasesHang;
    private final CountDownLatch firstReconnects = new CountDownLatch(1);
    private volatile boolean firstReleaseGaveUp;
    private final LockManager first = LockManagerBuilder.on(new DelegatingRepository(store) {
        // cut off, the first can take nothing either: else, its term over, it could win the role
        // again before the second, whose campaign waits between its tries
        @Override
        public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
            if (firstCutOff) {
                throw new LockStoreUnavailableException(key, "cut off by the test", null);
            }
            return super.takeLease(key, owner, holder, lease, dbWait);
        }

        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            if (firstCutOff) {
                throw new LockStoreUnavailableException(lease.key(), "cut off by the test", null);
            }
            return super.renewLease(lease, duration);
        }

        @Override
        public boolean releaseLease(Lease lease) {
            if (firstCutOff && firstReleasesHang) {
                awaitReconnect();
                firstReleaseGaveUp = true;
                throw new LockStoreUnavailableException(lease.key(), "cut off by the test", null);
            }
            return super.releaseLease(lease);
        }

        private void awaitReconnect() {
            try {
                firstReconnects.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }).build();
    private final LockManager second = LockManagerBuilder.on(store).build();

    @AfterEach
    void close() {
        first.close();
        second.close();
    }

    /** What a listener was told, in order: "granted 17", "lost 17 closed". */
    private static final class Told implements LeadershipListener {
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();

        @Override
        public void granted(Leadership leadership, long term) {
            events.add("granted " + term);
        }

        @Override
        public void lost(Leadership leadership, long term, String reason) {
            events.add("lost " + term + " " + reason);
        }

        String next() throws InterruptedException {
            String event = events.poll(20, TimeUnit.SECONDS);
            if (event == null) {
                throw new AssertionError("no leadership event within 20 s");
            }
            return event;
        }
    }

    @Test
    void oneLeadsAtATimeAndAClosedLeaderHandsTheRoleOnAtOnce() throws Exception {
        Told toldFirst = new Told();
        Told toldSecond = new Told();
        Leadership a = first.campaign("scheduler", LEASE, toldFirst);
        long firstTerm = term(toldFirst.next());
        assertTrue(a.isLeader());
        assertEquals(firstTerm, a.term().getAsLong());
        Leadership b = second.campaign("scheduler", LEASE, toldSecond);
        assertFalse(b.isLeader(), "a second candidate does not lead while the first does");
        assertTrue(toldSecond.events.poll(3 * LEASE.toMillis(), TimeUnit.MILLISECONDS) == null,
                "the second is granted nothing while the first renews: " + toldSecond.events);

        a.close();
        assertEquals("lost " + firstTerm + " closed", toldFirst.next());
        assertFalse(a.isLeader());
        long secondTerm = term(toldSecond.next());
        assertTrue(secondTerm > firstTerm, "each term's token is higher");
        assertTrue(b.isLeader());
        b.close();
    }

    /**
     * WildFly's connection pool refuses a connection to an interrupted thread; closing a candidacy
     * interrupts its thread to wake it. The release must not see that interrupt, or the role waits for
     * the lease (here longer than the wait for the next grant) instead of moving at once.
     */
    @Test
    void aClosedLeaderGivesTheRoleUpAlsoWhereTheStoreRefusesAnInterruptedThread() throws Exception {
        Duration longLease = Duration.ofSeconds(30);
        try (LockManager refusingInterrupted = LockManagerBuilder.on(new DelegatingRepository(store) {
            @Override
            public boolean releaseLease(Lease lease) {
                refuseIfInterrupted(lease);
                return super.releaseLease(lease);
            }

            @Override
            public boolean releaseLease(Lease lease, Duration holdAtLeast) {
                refuseIfInterrupted(lease);
                return super.releaseLease(lease, holdAtLeast);
            }

            private void refuseIfInterrupted(Lease lease) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new LockStoreUnavailableException(lease.key(), "no connection for an interrupted thread", null);
                }
            }
        }).build()) {
            Told toldFirst = new Told();
            Told toldSecond = new Told();
            Leadership a = refusingInterrupted.campaign("coordinator", longLease, toldFirst);
            long firstTerm = term(toldFirst.next());
            Leadership b = second.campaign("coordinator", longLease, toldSecond);

            a.close();
            assertEquals("lost " + firstTerm + " closed", toldFirst.next());
            assertTrue(term(toldSecond.next()) > firstTerm, "the role moved before its 30 s lease could run out");
            b.close();
        }
    }

    @Test
    void aLeaderCutOffFromTheStoreLearnsItLostTheRoleAndTheOtherTakesOver() throws Exception {
        Told toldFirst = new Told();
        Told toldSecond = new Told();
        Leadership a = first.campaign("reports", LEASE, toldFirst);
        long firstTerm = term(toldFirst.next());
        Leadership b = second.campaign("reports", LEASE, toldSecond);

        firstCutOff = true;
        String lost = toldFirst.next();
        assertTrue(lost.startsWith("lost " + firstTerm + " its lease ran out"), lost);
        assertFalse(a.isLeader(), "the cut-off leader no longer leads");
        long secondTerm = term(toldSecond.next());
        assertTrue(secondTerm > firstTerm);
        assertFalse(a.isLeader(), "never two leaders");
        a.close();
        b.close();
        assertTrue(toldFirst.events.isEmpty(), "a closed candidate without a term is told nothing more: " + toldFirst.events);
    }

    @Test
    void aCutOffLeaderIsToldOfItsLossWhileItsReleaseStillHangs() throws Exception {
        Told toldFirst = new Told();
        Leadership a = first.campaign("consumer", LEASE, toldFirst);
        long firstTerm = term(toldFirst.next());

        firstReleasesHang = true;
        firstCutOff = true;
        String lost = toldFirst.next();
        assertTrue(lost.startsWith("lost " + firstTerm + " its lease ran out"), lost);
        assertFalse(firstReleaseGaveUp, "told only after the release gave up: the leader's work ran on meanwhile");
        firstReconnects.countDown();
        firstCutOff = false;
        a.close();
    }

    /**
     * A store failure while campaigning (a statement that timed out on a loaded machine) costs a brief
     * pause, not half a lease: with a lease of an hour the candidate used to wait 30 minutes before it
     * asked again, and the role stayed without a leader all that time. Told's 20 s bound is far below that.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aCandidateThatMeetsAStoreFailureAsksAgainSoon(boolean lockException) throws Exception {
        // false: a failure of another kind (in CI, a lock store producer whose first call reached a
        // stopped Weld container), which ended the campaign's thread for good
        AtomicInteger failures = new AtomicInteger();
        try (LockManager failingOnce = LockManagerBuilder.on(new DelegatingRepository(store) {
            @Override
            public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
                if (failures.getAndIncrement() == 0) {
                    throw lockException ? new LockStoreUnavailableException(key, "a statement timed out (test)", null)
                            : new IllegalStateException("the store's producer failed (test)");
                }
                return super.takeLease(key, owner, holder, lease, dbWait);
            }
        }).build()) {
            Told told = new Told();
            Leadership candidate = failingOnce.campaign("after-a-failure", Duration.ofHours(1), told);
            term(told.next());
            assertTrue(failures.get() >= 2, "granted without meeting the failure");
            candidate.close();
        }
    }

    @Test
    void closingTheManagerEndsItsCandidaciesAndBadInputIsRefused() throws Exception {
        Told told = new Told();
        Leadership a = first.campaign("singleton", LEASE, told);
        long term = term(told.next());
        first.close();
        assertEquals("lost " + term + " closed", told.next());
        assertFalse(a.isLeader());
        assertThrows(IllegalStateException.class, () -> first.campaign("other", LEASE, told));
        assertThrows(IllegalArgumentException.class, () -> second.campaign(" ", LEASE, told));
        assertThrows(IllegalArgumentException.class, () -> second.campaign("role", Duration.ZERO, told));
        assertThrows(IllegalArgumentException.class, () -> second.campaign("role", LEASE, null));
        assertEquals(List.of(), List.copyOf(told.events));
    }

    private static long term(String granted) {
        assertTrue(granted.startsWith("granted "), granted);
        return Long.parseLong(granted.substring("granted ".length()));
    }
}
