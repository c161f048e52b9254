package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.ClockedMariaDb;
import io.locked.jpa.testing.server.ServerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A database clock that steps forward, on a private MariaDB whose clock the test steps (libfaketime),
 * with two lock managers on pools of their own standing for two JVMs. Every lease is judged on the
 * database's clock and counted by its holder on its own monotonic clock, so a step forward of more
 * than what is left of a lease ends it early: another JVM may take the key (or the role) at once,
 * while the old holder still counts it valid. What the lock promises there: the old holder learns it
 * at its next renewal, which goes out at most 5/12 of the lease after the one before and answers
 * within its statement's bound; the next holder's token is higher; and a lock-delay longer than the
 * step keeps the row's lease longer than the holder's count, so nobody else gets in.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClockStepForwardTest {
    private static final Duration LEASE = Duration.ofSeconds(6);
    /** Past the whole lease: the row's lease has run out on the stepped clock, whatever is left of it. */
    private static final Duration STEP = LEASE.plusSeconds(1);
    /**
     * How soon after the step the old holder learns it: its next renewal goes out at most a third of
     * the lease and a twelfth for gathering its batch after the last one, and answers within its
     * statement's bound (a third of the lease, at least the statement allowance).
     */
    private static final Duration RENEWAL_BOUND = max(LEASE.dividedBy(3), CallBounds.STATEMENT_ALLOWANCE);
    private static final Duration TOLD_WITHIN = LEASE.multipliedBy(5).dividedBy(12).plus(RENEWAL_BOUND);
    private final Path serverDir = Path.of("target", "clock-step-forward", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private final List<Store> stores = new ArrayList<>();
    private ClockedMariaDb server;
    private LockManager jvm1;
    private LockManager jvm2;

    private static Duration max(Duration one, Duration other) {
        return one.compareTo(other) >= 0 ? one : other;
    }

    @BeforeAll
    void startServer() throws Exception {
        Files.createDirectories(serverDir);
        server = ClockedMariaDb.start(serverDir, List.of());
        assertTrue(TOLD_WITHIN.compareTo(LEASE) < 0, "the bound tested must be shorter than the holder's own count");
    }

    @BeforeEach
    void startJvms() {
        jvm1 = LockManagerBuilder.on(store().repository()).build();
        jvm2 = LockManagerBuilder.on(store().repository()).build();
    }

    @AfterEach
    void stopJvms() {
        jvm1.close();
        jvm2.close();
    }

    @AfterAll
    void stopServer() {
        stores.forEach(Store::close);
        if (server != null) {
            server.close();
        }
        ServerProcess.deleteTree(serverDir);
    }

    private Store store() {
        Store store = TestDatabase.MARIADB.openAt(server.url(), server.user(), server.password(), 4,
                settings -> settings.statements(LockStatements.NATIVE));
        stores.add(store);
        return store;
    }

    private static LockRequest optimistic(String key) {
        return LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(LEASE);
    }

    /**
     * The limit, and what bounds it: after the step the other JVM takes the key at once, while the old
     * holder may still count it valid; the old holder is told within its next renewal, its release
     * throws {@link LockLostException}, and the new token is higher. Any overlap is one the old holder
     * was told of, never a silent one.
     */
    @Test
    void aLockWhoseLeaseAStepForwardEndedIsToldLostAtItsNextRenewal() throws Exception {
        String key = "step-forward:" + UUID.randomUUID();
        LockHandle first = jvm1.acquire(optimistic(key));
        long firstEntered = System.nanoTime();

        long stepped = System.nanoTime();
        server.stepClock(STEP);
        LockHandle second = jvm2.acquire(optimistic(key).maxWait(LEASE));
        long secondEntered = System.nanoTime();

        long told = awaitWithin(() -> !first.isValid(), stepped, TOLD_WITHIN, "the first holder was not told its"
                + " lease ended");
        LockLostException lost = assertThrows(LockLostException.class, first::close);
        assertTrue(lost.getMessage().contains(key), lost.getMessage());
        assertTrue(lost.getMessage().contains("stepped forward"), "the loss names the likely cause: " + lost.getMessage());
        assertTrue(second.isValid(), "the second holder lost the key");
        second.close();
        long secondLeft = System.nanoTime();

        assertTrue(second.token() > first.token(), "token " + second.token() + " after " + first.token());
        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(
                new CriticalSection("jvm1", first.token(), firstEntered, told, true),
                new CriticalSection("jvm2", second.token(), secondEntered, secondLeft, false)));
        assertEquals(List.of(), verdict.silent(), "an overlap nobody was told of");
    }

    /**
     * What the schedule of renewals absorbs: the next renewal reaches the row at most 5/12 of the lease
     * plus its bound after the one before, so a step shorter than 7/12 of the lease minus that bound
     * leaves the row's lease running until the renewal extends it on the stepped clock. The other JVM,
     * trying all along, gets the key only after the holder's release.
     */
    @Test
    void aStepShorterThanWhatTheNextRenewalLeavesEndsNoLease() throws Exception {
        Duration step = LEASE.multipliedBy(7).dividedBy(12).minus(RENEWAL_BOUND).minusMillis(100);
        assertTrue(!step.isNegative() && !step.isZero(), "no such step for a lease of " + LEASE);
        heldThroughAStep(LockRequest.of("step-forward-short:" + UUID.randomUUID()).mode(LockMode.OPTIMISTIC)
                .lease(LEASE), step);
    }

    /**
     * The mitigation: with a lock-delay longer than the step, the row's lease (lease plus delay) still
     * runs after the step, the holder's renewal extends it on the stepped clock, and the other JVM,
     * trying all along, gets the key only after the holder's release. No overlap at all.
     */
    @Test
    void aLockDelayLongerThanTheStepKeepsTheKeyWithItsHolder() throws Exception {
        heldThroughAStep(optimistic("step-forward-delayed:" + UUID.randomUUID()).lockDelay(STEP.plusSeconds(2)), STEP);
    }

    /**
     * The holder takes the key, the other JVM tries for it all along, the clock steps forward; once the
     * holder's lease was renewed on the stepped clock it releases, and the other JVM gets the key then,
     * not before: no overlap, and a higher token.
     */
    private void heldThroughAStep(LockRequest request, Duration step) throws Exception {
        String key = request.key();
        LockHandle first = jvm1.acquire(request);
        long firstEntered = System.nanoTime();
        Instant untilBefore = jvm2.inspect(key).until().orElseThrow(() -> new AssertionError("the key shows no lease"));
        CompletableFuture<LockHandle> trying = CompletableFuture.supplyAsync(
                () -> jvm2.acquire(optimistic(key).maxWait(LEASE.multipliedBy(4))));

        long stepped = System.nanoTime();
        server.stepClock(step);
        // the holder's first renewal on the stepped clock: its row's end moved by the step and more
        awaitWithin(() -> {
            Instant until = jvm2.inspect(key).until().orElse(null);
            return until != null && until.isAfter(untilBefore.plus(step));
        }, stepped, TOLD_WITHIN, "the holder's lease was not renewed after the step");
        assertTrue(first.isValid(), "the holder lost its lease to a step of " + step);
        assertTrue(!trying.isDone(), "the other JVM got the key while its holder held it: " + trying);
        first.close();
        long firstLeft = System.nanoTime();

        try (LockHandle second = trying.get(LEASE.multipliedBy(5).toSeconds(), TimeUnit.SECONDS)) {
            long secondEntered = System.nanoTime();
            assertTrue(second.token() > first.token(), "token " + second.token() + " after " + first.token());
            assertEquals(List.of(), HistoryChecker.violations(List.of(
                    new CriticalSection("jvm1", first.token(), firstEntered, firstLeft, false),
                    new CriticalSection("jvm2", second.token(), secondEntered, System.nanoTime(), false))));
        }
    }

    /**
     * The same limit for a role: after the step the other candidate becomes leader at once; the old
     * leader's {@code isLeader()} turns false and its listener is told within its next renewal (and the
     * candidacy's check, a tenth of the lease); the new term's token is higher.
     */
    @Test
    void aLeaderWhoseLeaseAStepForwardEndedIsToldLostAtItsNextRenewal() throws Exception {
        String role = "step-forward-role:" + UUID.randomUUID();
        Terms firstTerms = new Terms();
        Terms secondTerms = new Terms();
        try (Leadership first = jvm1.campaign(role, LEASE, firstTerms)) {
            awaitWithin(() -> firstTerms.granted() != null, System.nanoTime(), LEASE, "the first candidate never led");
            long firstToken = firstTerms.granted();
            long firstLed = System.nanoTime();
            try (Leadership second = jvm2.campaign(role, LEASE, secondTerms)) {
                long stepped = System.nanoTime();
                server.stepClock(STEP);
                Duration checked = max(Duration.ofMillis(10), LEASE.dividedBy(10));
                long told = awaitWithin(() -> firstTerms.lost() != null, stepped, TOLD_WITHIN.plus(checked),
                        "the first leader was not told its term ended");
                assertTrue(!first.isLeader(), "the first leader still leads after it was told");
                awaitWithin(() -> secondTerms.granted() != null, stepped, LEASE, "the second candidate never led");
                long secondLed = System.nanoTime();
                assertTrue(second.isLeader());
                long secondToken = secondTerms.granted();
                assertTrue(secondToken > firstToken, "term " + secondToken + " after " + firstToken);
                assertEquals(List.of(), HistoryChecker.check(List.of(
                        new CriticalSection("jvm1", firstToken, firstLed, told, true),
                        new CriticalSection("jvm2", secondToken, secondLed, System.nanoTime(), false))).silent());
            }
        }
    }

    /** The first term a listener was granted and the first it lost, with their tokens. */
    private static final class Terms implements LeadershipListener {
        private volatile Long granted;
        private volatile Long lost;

        @Override
        public void granted(Leadership leadership, long term) {
            if (granted == null) {
                granted = term;
            }
        }

        @Override
        public void lost(Leadership leadership, long term, String reason) {
            if (lost == null) {
                lost = term;
            }
        }

        Long granted() {
            return granted;
        }

        Long lost() {
            return lost;
        }
    }

    /**
     * Polls a condition until it holds; fails if that takes longer than {@code within} from {@code since}.
     *
     * @return when it was seen to hold
     */
    private static long awaitWithin(BooleanSupplier condition, long since, Duration within, String failure)
            throws InterruptedException {
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - since > within.toNanos()) {
                throw new AssertionError(failure + " within " + within);
            }
            Thread.sleep(10);
        }
        return System.nanoTime();
    }
}
