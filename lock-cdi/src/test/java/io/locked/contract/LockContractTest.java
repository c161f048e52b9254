package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract every lock store must keep, through the lock manager, on a real database. Each
 * database runs it by extending this class and providing {@link #repository()}.
 */
public abstract class LockContractTest implements InspectionContract, MinimumHoldContract, LockDelayContract,
        BatchedRenewalContract, PermitContract, ReadWriteContract, LeaseKeepContract, ReleaseRetryContract {
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    private final List<LockManager> managers = new ArrayList<>();
    // A new thread per task: a reused pool thread would still hold the keys it acquired (reentrancy).
    private ExecutorService threads;
    /** The manager most tests use. */
    protected LockManager locks;

    /** @return the store under test, its table in place */
    protected abstract LockRepository repository();

    /**
     * Reads the table directly, past the store under test.
     *
     * @param key a lock key
     * @return whether the key has a row
     */
    protected abstract boolean rowExists(String key);

    /**
     * Ends, from outside, every database session of the store's user that has a transaction open,
     * as an idle-in-transaction timeout, a failover or a firewall reset would.
     */
    protected abstract void endSessionsInTransaction() throws Exception;

    /**
     * Row-locks the key's row from outside the store (a plain connection in a transaction of its
     * own), as an operator's session or another program would; statements of the store on that row
     * wait until it is closed.
     *
     * @param key a lock key whose row exists
     * @return the row lock; closing it ends that transaction
     */
    protected abstract AutoCloseable lockRowFromOutside(String key) throws Exception;

    @Override
    public void endSessionsInTransactionFromOutside() throws Exception {
        endSessionsInTransaction();
    }

    @Override
    public LockRepository inspectedStore() {
        return repository();
    }

    @Override
    public LockRepository permitStore() {
        return repository();
    }

    @Override
    public LockRepository readWriteStore() {
        return repository();
    }

    @BeforeEach
    void newManager() {
        threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 0, TimeUnit.NANOSECONDS, new SynchronousQueue<>()) {
            @Override
            public void execute(Runnable command) {
                Thread thread = new Thread(command, "contract-" + UUID.randomUUID().toString().substring(0, 8));
                thread.setDaemon(true);
                thread.start();
            }
        };
        locks = manager(repository(), Clock.systemUTC());
    }

    @AfterEach
    void closeManagers(TestInfo test) throws Exception {
        threads.shutdownNow();
        managers.forEach(LockManager::close);
        managers.clear();
        if (test.getTestMethod().map(method -> method.getDeclaringClass() == ReadWriteContract.class).orElse(false)) {
            assertNothingOfAReadWriteLockLeftHeld();
        }
    }

    /**
     * Once a read/write test closed its managers, no row of any read/write key ({@code rw:...}) is held and
     * no connection is out: a group of readers that nobody releases would keep its slot (and a
     * {@code PESSIMISTIC} one its connection) for good. Polled: a release in flight on another thread may
     * still be on its way.
     */
    private void assertNothingOfAReadWriteLockLeftHeld() throws Exception {
        try (LockManager operator = LockManagerBuilder.on(repository()).build()) {
            try {
                Await.until(() -> heldRows(operator, "rw:").isEmpty() && connectionsInUse() <= 0,
                        ReadWriteContract.READ_WRITE_PATIENCE, "the read/write test's rows and connections were all given back");
            } catch (AssertionError leftHeld) {
                throw new AssertionError(leftHeld.getMessage() + "; held: " + heldRows(operator, "rw:")
                        + ", connections in use: " + connectionsInUse(), leftHeld);
            }
        }
    }

    private static List<String> heldRows(LockManager operator, String prefix) {
        List<String> held = new ArrayList<>();
        LockInfo after = null;
        while (true) {
            List<LockInfo> page = operator.list(prefix, after, 500);
            page.stream().filter(LockInfo::held).map(info -> info.kind() + " " + info.key() + " " + info.slot())
                    .forEach(held::add);
            if (page.size() < 500) {
                return held;
            }
            after = page.get(page.size() - 1);
        }
    }

    /** @return how many connections the store under test has out of its pool, or -1 where it cannot tell */
    protected int connectionsInUse() {
        return -1;
    }

    /** @return a manager on the given store and client clock, closed after the test */
    protected LockManager manager(LockRepository repository, Clock clock) {
        LockManager manager = LockManagerBuilder.on(repository).clock(clock).build();
        managers.add(manager);
        return manager;
    }

    /** @return a key no other test uses */
    protected static String freshKey(String name) {
        return "contract:" + name + ":" + UUID.randomUUID();
    }

    private <T> T inOtherThread(java.util.concurrent.Callable<T> work) throws Exception {
        return threads.submit(work).get(60, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void threadsOfOneJvmNeverOverlap(LockMode mode) throws Exception {
        ThreadsOnOneKey.assertExclusion(locks, freshKey("exclusion"), mode, threads, 6, 25, LONG_WAIT, Duration.ofSeconds(120));
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void heldKeyIsRefusedToOthersAndFreedOnClose(LockMode mode) throws Exception {
        String key = freshKey("held");
        LockRequest request = LockRequest.of(key).mode(mode);
        LockHandle held = locks.acquire(request);
        assertTrue(held.isValid());
        assertFalse(inOtherThread(() -> locks.tryAcquire(request)).isPresent(), "a second holder got in");
        held.close();
        assertFalse(held.isValid(), "a closed handle must not claim to hold the lock");
        Optional<LockHandle> next = inOtherThread(() -> locks.tryAcquire(request));
        assertTrue(next.isPresent(), "the lock was not freed on close");
        assertTrue(next.get().token() > held.token(), "token did not increase");
        inOtherThread(() -> {
            next.get().close();
            return null;
        });
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void waitRunsOutWithNotAcquired(LockMode mode) throws Exception {
        String key = freshKey("wait");
        try (LockHandle held = locks.acquire(LockRequest.of(key).mode(mode))) {
            // a pessimistic waiter waits in the database, where some count a lock wait in whole seconds:
            // over one second, so that one such wait runs out there. An optimistic waiter of the same
            // manager waits in the JVM's queue for the key, where any wait runs out alike.
            Duration wait = Duration.ofMillis(mode == LockMode.PESSIMISTIC ? 1200 : 400);
            LockRequest impatient = LockRequest.of(key).mode(mode).maxWait(wait);
            // the bound is a hang detector, not a speed check
            LockNotAcquiredException refused = assertTimeoutPreemptively(Duration.ofSeconds(15), () ->
                    assertThrows(LockNotAcquiredException.class, () -> inOtherThreadUnwrapped(impatient)));
            assertEquals(key, refused.key());
            assertTrue(refused.getMessage().contains(key), refused.getMessage());
            assertTrue(held.isValid());
        }
    }

    private void inOtherThreadUnwrapped(LockRequest request) throws Throwable {
        try {
            inOtherThread(() -> locks.acquire(request)).close();
        } catch (java.util.concurrent.ExecutionException e) {
            throw e.getCause();
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void waiterGetsTheLockWhenHolderReleasesWithinTheWait(LockMode mode) throws Exception {
        String key = freshKey("handoff");
        LockHandle held = locks.acquire(LockRequest.of(key).mode(mode));
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = threads.submit(() -> {
            waiting.countDown();
            try (LockHandle next = locks.acquire(LockRequest.of(key).mode(mode).maxWait(LONG_WAIT))) {
                return next.token();
            }
        });
        waiting.await();
        held.close();
        assertTrue(waiter.get(60, TimeUnit.SECONDS) > held.token());
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aWaitOfMonthsTakesAFreeKeyAndWaitsForAHeldOne(LockMode mode) throws Exception {
        // PostgreSQL refuses a lock_timeout above 2^31-1 ms (24.9 days), H2 and MariaDB have limits of their own
        Duration months = Duration.ofDays(90);
        try (LockHandle free = locks.acquire(LockRequest.of(freshKey("months-free")).mode(mode).maxWait(months))) {
            assertTrue(free.isValid());
        }
        String key = freshKey("months-held");
        LockHandle held = locks.acquire(LockRequest.of(key).mode(mode));
        LockManager elsewhere = manager(repository(), Clock.systemUTC());
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = threads.submit(() -> {
            waiting.countDown();
            try (LockHandle next = elsewhere.acquire(LockRequest.of(key).mode(mode).maxWait(months))) {
                return next.token();
            }
        });
        waiting.await();
        held.close();
        assertTrue(waiter.get(60, TimeUnit.SECONDS) > held.token());
    }

    @Test
    void theReadinessReadAnswersOnAReachableStore() {
        assertDoesNotThrow(() -> repository().checkReachable(Duration.ofSeconds(10)));
    }

    @Test
    void tokensIncreaseAcrossModes() {
        String key = freshKey("tokens");
        long previous = 0;
        for (LockMode mode : List.of(LockMode.PESSIMISTIC, LockMode.OPTIMISTIC, LockMode.OPTIMISTIC,
                LockMode.PESSIMISTIC, LockMode.PESSIMISTIC, LockMode.OPTIMISTIC)) {
            try (LockHandle lock = locks.acquire(LockRequest.of(key).mode(mode))) {
                assertTrue(lock.token() > previous, mode + " token " + lock.token() + " after " + previous);
                previous = lock.token();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    @Timeout(30)
    void sameThreadReentersAndOutermostCloseReleases(LockMode mode) throws Exception {
        String key = freshKey("reentrant");
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(Duration.ofSeconds(2));
        LockHandle outer = locks.acquire(request);
        LockHandle inner = locks.acquire(request);
        assertEquals(outer.token(), inner.token(), "a reentrant hold is the same acquisition");
        inner.close();
        assertFalse(inOtherThread(() -> locks.tryAcquire(request)).isPresent(), "inner close released the row");
        assertTrue(outer.isValid());
        outer.close();
        Optional<LockHandle> after = inOtherThread(() -> locks.tryAcquire(request));
        assertTrue(after.isPresent(), "outermost close did not release the row");
        inOtherThread(() -> {
            after.get().close();
            return null;
        });
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    @Timeout(60)
    void aThreadThatHandedItsHandleOverWaitsLikeAnyoneElse(LockMode mode) throws Exception {
        String key = freshKey("handed-over");
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(Duration.ofMillis(300));
        LockHandle exported = locks.acquire(request).handOver();
        assertFalse(locks.tryAcquire(request).isPresent(), "the thread re-entered a lock it had handed over");
        assertThrows(LockNotAcquiredException.class, () -> locks.acquire(request));
        assertTrue(exported.isValid());
        CompletableFuture.runAsync(exported::close, threads).get(30, TimeUnit.SECONDS);
        try (LockHandle next = locks.acquire(request)) {
            assertTrue(next.token() > exported.token(), "not a new acquisition after the hand-over's close");
        }
    }

    @Test
    @Timeout(60)
    void aPessimisticHolderLearnsThatItsSessionEnded() throws Exception {
        String key = freshKey("session");
        LockManager checked = LockManagerBuilder.on(repository()).sessionCheckEvery(Duration.ofMillis(100)).build();
        managers.add(checked);
        LockHandle held = checked.acquire(LockRequest.of(key));
        endSessionsInTransaction();
        while (held.isValid()) {
            Thread.sleep(20); // polling a condition; @Timeout bounds it
        }
        LockLostException lost = assertThrows(LockLostException.class, held::close);
        assertTrue(lost.getMessage().contains("session ended"), lost.getMessage());
        try (LockHandle next = inOtherThread(() -> locks.acquire(LockRequest.of(key).maxWait(LONG_WAIT)))) {
            assertTrue(next.isValid());
        }
    }

    @Test
    @Timeout(60)
    void aLostLeaseIsNotReenteredButAcquiredAfresh() throws Exception {
        String key = freshKey("lost-reentry");
        PausableRepository paused = new PausableRepository(repository());
        LockManager pausedHolder = manager(paused, Clock.systemUTC());
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(400)).maxWait(LONG_WAIT);
        LockHandle outer = pausedHolder.acquire(request);
        paused.cutRenewals();
        while (outer.isValid()) {
            Thread.sleep(20); // polling a condition; @Timeout bounds it
        }
        // the fresh acquisition must outlive the checks below on a busy machine: a lease of its own, not 400 ms
        try (LockHandle again = pausedHolder.acquire(request.lease(Duration.ofSeconds(30)))) {
            assertTrue(again.token() > outer.token(), "re-entered a lost lock");
            assertThrows(LockLostException.class, outer::close);
            assertTrue(again.isValid(), "the lost outer's close released the fresh acquisition");
            assertFalse(inOtherThread(() -> locks.tryAcquire(request)).isPresent(), "the fresh acquisition is not held");
        }
    }

    /**
     * A take may run twice for one acquisition: its reply lost after it ran, it is sent once more on
     * another connection. The second finds the row in its own owner's name (the owner is the
     * acquisition's id, never another's) and takes it again, with a higher token, rather than answer
     * "busy" and leave the key taken by nobody for a whole lease.
     */
    @Test
    void aTakeThatFindsItsOwnLiveLeaseTakesItAgain() {
        String key = freshKey("taken-twice");
        Duration lease = Duration.ofSeconds(30);
        Lease first = repository().takeLease(key, "owner-twice", "first", lease, Duration.ZERO);
        Lease again = repository().takeLease(key, "owner-twice", "again", lease, Duration.ZERO);
        assertNotNull(again, "a take in the name of the lease's own owner found the key busy");
        assertTrue(again.token() > first.token(), "the take again drew a higher token: " + first + ", " + again);
        assertNull(repository().takeLease(key, "owner-other", "other", lease, Duration.ZERO),
                "another owner took the key taken again");
        assertTrue(repository().releaseLease(again), "the lease taken again is its owner's");
    }

    @Test
    void aLiveLeaseIsHandedOverWithANewTokenAndNothingElseIs() {
        String key = freshKey("hand-over");
        LockRepository store = repository();
        Lease first = store.takeLease(key, "owner-a", "a", Duration.ofSeconds(30), Duration.ZERO);
        Lease passed = store.handOverLease(first, "owner-b", "b", Duration.ofSeconds(30));
        assertEquals("owner-b", passed.owner());
        assertTrue(passed.token() > first.token(), "the receiver's token must be higher");
        assertEquals(first.version() + 1, passed.version());
        // the giver holds nothing any more; the receiver holds the row
        assertFalse(store.releaseLease(first), "the giver could still release");
        assertEquals(null, store.handOverLease(first, "owner-c", "c", Duration.ofSeconds(30)), "handed over twice");
        assertEquals(null, store.takeLease(key, "owner-d", "d", Duration.ofSeconds(30), Duration.ZERO), "the row was free");
        Lease renewed = store.renewLease(passed, Duration.ofSeconds(30));
        assertTrue(renewed != null, "the receiver cannot renew its lease");
        assertTrue(store.releaseLease(renewed), "the receiver cannot release its lease");
    }

    @Test
    @Timeout(60)
    void anExpiredLeaseIsNotHandedOver() throws Exception {
        String key = freshKey("hand-over-expired");
        LockRepository store = repository();
        Lease expiring = store.takeLease(key, "owner-a", "a", Duration.ofMillis(200), Duration.ZERO);
        Lease next = null;
        while (next == null) {
            Thread.sleep(20); // until the database's clock has let the lease expire; @Timeout bounds it
            next = store.takeLease(key, "owner-b", "b", Duration.ofSeconds(30), Duration.ZERO);
        }
        assertEquals(null, store.handOverLease(expiring, "owner-c", "c", Duration.ofSeconds(30)));
        assertTrue(store.releaseLease(next), "a refused hand-over touched the new holder's row");
    }

    @Test
    void handleMayBeClosedFromAnotherThread() throws Exception {
        String key = freshKey("async");
        LockHandle held = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC));
        CompletableFuture.runAsync(held::close, threads).get(30, TimeUnit.SECONDS);
        try (LockHandle again = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO))) {
            assertTrue(again.token() > held.token(), "not a new acquisition after the async release");
        }
    }

    @Test
    void watchdogKeepsALeaseAliveLongerThanItsLength() throws Exception {
        String key = freshKey("renewed");
        // a renewal goes out every third of the lease, so a busy machine may delay one by up to two thirds of
        // it before the lease runs out: 400 ms of a 600 ms lease was too little under load, 1.3 s of 2 s is not
        Duration lease = Duration.ofSeconds(2);
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(lease);
        try (LockHandle held = locks.acquire(request)) {
            // two lease lengths go by: by the end the lease lives only through renewals sent after
            // its first length ran out, and another holder is refused all along
            long until = System.nanoTime() + lease.multipliedBy(2).toNanos();
            while (System.nanoTime() < until) {
                assertFalse(inOtherThread(() -> locks.tryAcquire(request)).isPresent(), "lease expired while renewed");
                assertTrue(held.isValid(), "handle turned invalid while renewals succeed");
                Thread.sleep(200);
            }
        }
    }

    @Test
    void holderCutOffFromRenewalLearnsItLostTheLockAndNextHolderHasHigherToken() throws Exception {
        String key = freshKey("lost");
        PausableRepository paused = new PausableRepository(repository());
        LockManager pausedHolder = manager(paused, Clock.systemUTC());
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(400));
        LockHandle stale = pausedHolder.acquire(request);
        paused.cutRenewals();
        // the next holder's lease must outlive the checks below on a busy machine: a lease of its own, not 400 ms
        LockHandle next = inOtherThread(() -> locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(LONG_WAIT)));
        assertTrue(next.token() > stale.token(), "takeover token must be higher");
        assertFalse(stale.isValid(), "the cut-off holder still believes it holds the lock");
        LockLostException lost = assertThrows(LockLostException.class, stale::close);
        assertEquals(key, lost.key());
        // the stale release must not have freed the new holder's row
        assertFalse(inOtherThread(() -> locks.tryAcquire(request)).isPresent(), "stale release freed the new holder");
        assertTrue(next.isValid());
        inOtherThread(() -> {
            next.close();
            return null;
        });
    }

    @Test
    void leaseThatRanOutUnrenewedIsReportedLostEvenIfNobodyTookIt() throws Exception {
        String key = freshKey("expired");
        PausableRepository paused = new PausableRepository(repository());
        LockManager pausedHolder = manager(paused, Clock.systemUTC());
        LockHandle held = pausedHolder.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(300)));
        paused.cutRenewals();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (held.isValid() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertFalse(held.isValid());
        assertThrows(LockLostException.class, held::close);
        // and the expired row was freed for the next holder
        try (LockHandle next = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ZERO))) {
            assertTrue(next.token() > held.token());
        }
    }

    @ParameterizedTest(name = "client clock off by {0} minutes")
    @ValueSource(ints = {10, -10})
    void clientClockMinutesOffNeitherStealsNorKeeps(int minutesOff) throws Exception {
        String key = freshKey("clock");
        Clock skewed = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(minutesOff));
        Clock opposite = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-minutesOff));
        PausableRepository paused = new PausableRepository(repository());
        LockManager skewedHolder = manager(paused, skewed);
        LockManager oppositeContender = manager(repository(), opposite);
        // minutes of skew against a lease of seconds: any lease length shows who wins, and seconds keep the
        // live lease alive through a busy machine's slow renewals (600 ms was lost once in CI)
        LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofSeconds(3));

        LockHandle held = skewedHolder.acquire(request);
        // cannot steal a live lease
        assertFalse(inOtherThread(() -> oppositeContender.tryAcquire(request)).isPresent(), "skewed client stole a live lease");
        // cannot keep a dead one: once renewals stop, the lease dies on the database clock
        paused.cutRenewals();
        LockHandle takeover = inOtherThread(() -> oppositeContender.acquire(request.maxWait(LONG_WAIT).lease(Duration.ofSeconds(30))));
        assertTrue(takeover.token() > held.token());
        assertFalse(held.isValid());
        assertThrows(LockLostException.class, held::close);
        inOtherThread(() -> {
            takeover.close();
            return null;
        });
    }

    @Test
    @Timeout(60)
    void aRenewalWhoseReplyWasLostDoesNotEndTheLease() throws Exception {
        String key = freshKey("lost-reply");
        FaultyRepository faulty = new FaultyRepository(repository());
        LockManager holder = manager(faulty, Clock.systemUTC());
        faulty.loseRenewalRepliesOf(key, 1);
        // a lease of 3 s: after the renewal whose reply was lost, the next one has two thirds of it to go out, which
        // a busy machine did not give a 900 ms lease (PostgreSQL's JTA class lost one so)
        try (LockHandle held = holder.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(Duration.ofSeconds(3)))) {
            while (faulty.renewals(key) < 3 && held.isValid()) {
                Thread.sleep(20); // polling a condition; @Timeout bounds it
            }
            assertTrue(held.isValid(), "a renewal after the one whose reply was lost was refused");
        }
    }

    @Test
    @Timeout(120)
    void aRenewalHungOnARowLockDelaysNoOtherLeaseNorItsHoldersClose() throws Exception {
        String stuckKey = freshKey("row-locked");
        String otherKey = freshKey("renewed");
        FaultyRepository counted = new FaultyRepository(repository());
        LockManager holder = manager(counted, Clock.systemUTC());
        // the stuck lease's first renewal goes out at a third of its length and hangs until its
        // statement's timeout (seconds on the JPA store); the other lease's three renewals come well
        // before that, and the stuck lease is still live when it is closed
        // the other lease renews every 400 ms: a renewal delayed by a busy machine up to 800 ms keeps it
        // (600 ms leases were lost so in CI); the stuck one's hang outlasts the other's three renewals
        LockHandle stuck = holder.acquire(LockRequest.of(stuckKey).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(4800)));
        LockHandle other = holder.acquire(LockRequest.of(otherKey).mode(LockMode.OPTIMISTIC).lease(Duration.ofMillis(1200)));
        try (AutoCloseable rowLock = lockRowFromOutside(stuckKey)) {
            while (counted.renewalsSent(stuckKey) == 0) {
                Thread.sleep(20); // polling a condition; @Timeout bounds it
            }
            // that renewal now waits for the row lock, until its statement's timeout
            int before = counted.renewals(otherKey);
            while (counted.renewals(otherKey) < before + 3 && other.isValid()) {
                Thread.sleep(20); // polling a condition; @Timeout bounds it
            }
            assertTrue(other.isValid(), "a renewal hung on another key's row stopped this lease's renewals");
            // the release meets the row lock too: it may fail, but within its own bound
            assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
                try {
                    stuck.close();
                } catch (io.locked.api.LockException releaseFailed) {
                    // lost or store unavailable: either way the holder is told, and nothing hangs
                }
            });
        } finally {
            other.close();
        }
    }

    @Test
    void pessimisticRequestWaitsWhileALiveLeaseHoldsTheKey() throws Exception {
        String key = freshKey("mixed");
        LockHandle lease = locks.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC));
        assertFalse(inOtherThread(() -> locks.tryAcquire(LockRequest.of(key))).isPresent(),
                "a pessimistic acquirer ignored a live lease");
        lease.close();
        Optional<LockHandle> pessimistic = inOtherThread(() -> locks.tryAcquire(LockRequest.of(key)));
        assertTrue(pessimistic.isPresent());
        inOtherThread(() -> {
            pessimistic.get().close();
            return null;
        });
    }

    @Test
    void callLockedRunsTheActionUnderTheLock() throws Exception {
        String key = freshKey("call");
        String result = locks.callLocked(LockRequest.of(key), () -> {
            assertFalse(inOtherThread(() -> locks.tryAcquire(LockRequest.of(key))).isPresent());
            return "done";
        });
        assertEquals("done", result);
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> locks.callLocked(LockRequest.of(key), () -> {
                    throw new IllegalStateException("boom");
                }));
        assertEquals("boom", thrown.getMessage());
        assertTrue(inOtherThread(() -> locks.tryAcquire(LockRequest.of(key))).map(h -> {
            h.close();
            return true;
        }).orElse(false), "the lock was not released after the action threw");
    }

    @Test
    void cleanupDeletesIdleFreeRowsOnlyAndTokensKeepIncreasing() throws Exception {
        String idle = freshKey("idle");
        String heldPessimistic = freshKey("held-p");
        String heldLease = freshKey("held-o");
        long idleToken;
        try (LockHandle lock = locks.acquire(LockRequest.of(idle).mode(LockMode.OPTIMISTIC))) {
            idleToken = lock.token();
        }
        // a store may create a new key's row inside the holder's own transaction, where no one else
        // sees it yet: the row under test is one that was committed before, as on a key in use
        locks.acquire(LockRequest.of(heldPessimistic)).close();
        LockHandle pessimistic = locks.acquire(LockRequest.of(heldPessimistic));
        LockHandle lease = locks.acquire(LockRequest.of(heldLease).mode(LockMode.OPTIMISTIC));
        assertTrue(rowExists(idle));

        // idle for a microsecond is enough: the held rows must survive on their own merits
        int deleted = inOtherThread(() -> repository().deleteIdleRows(Duration.ofNanos(1000)));
        assertTrue(deleted >= 1, "nothing was deleted");
        assertFalse(rowExists(idle), "the idle free row was not deleted");
        assertTrue(rowExists(heldPessimistic) && rowExists(heldLease), "a held row was deleted");
        assertTrue(pessimistic.isValid() && lease.isValid());
        assertFalse(inOtherThread(() -> locks.tryAcquire(LockRequest.of(heldPessimistic))).isPresent(), "a held row was deleted");
        assertFalse(inOtherThread(() -> locks.tryAcquire(LockRequest.of(heldLease))).isPresent(), "a leased row was deleted");
        pessimistic.close();
        lease.close();
        try (LockHandle again = locks.acquire(LockRequest.of(idle))) {
            assertTrue(again.token() > idleToken, "token went backwards after the row was deleted");
        }
    }
}
