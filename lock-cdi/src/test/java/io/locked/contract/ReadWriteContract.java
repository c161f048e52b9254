package io.locked.contract;

import io.locked.api.HolderKind;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.contract.ReadWriteHistoryChecker.Access;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRows;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Read/write locks ({@link LockRequest#read()}, {@link LockRequest#write()}) on every store of the
 * contract suite, in both modes: readers share, a writer waits for them and then runs alone, a
 * waiting writer keeps new readers out, a read inside a write is allowed and a write inside a read
 * refused. Managers on one store stand for JVMs.
 */
public interface ReadWriteContract {
    Duration READ_WRITE_PATIENCE = Duration.ofSeconds(30);

    /** @return the store under test, its table in place */
    LockRepository readWriteStore();

    /**
     * @return whether another session can read a row held {@code PESSIMISTIC} without waiting for it
     *         (a read/write lock reads the other side's rows; not on Derby, whose reads wait for row locks)
     */
    default boolean readsPessimisticRowsForReadWrite() {
        return true;
    }

    /**
     * Ends, from outside, every database session of the store's user that has a transaction open, as an
     * idle-in-transaction timeout, a failover or a firewall reset would ({@link LockContractTest}).
     */
    void endSessionsInTransactionFromOutside() throws Exception;

    private LockManager readWriteManager() {
        return LockManagerBuilder.on(readWriteStore()).build();
    }

    private boolean runs(LockMode mode) {
        return readWriteStore().refusal(mode, LockType.READ).isEmpty()
                && (mode == LockMode.OPTIMISTIC || readsPessimisticRowsForReadWrite());
    }

    private String whyNot(LockMode mode) {
        return readWriteStore().refusal(mode, LockType.READ)
                .orElse("this store cannot read a row held PESSIMISTIC without waiting for it");
    }

    private static LockRequest access(String key, LockMode mode, LockType type) {
        return LockRequest.of(key).mode(mode).type(type).maxWait(READ_WRITE_PATIENCE);
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void readersShareAWaitingWriterKeepsNewReadersOutThenRunsAlone(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:share:" + UUID.randomUUID();
        List<LockManager> jvms = List.of(readWriteManager(), readWriteManager(), readWriteManager(), readWriteManager());
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        List<LockHandle> readers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                readers.add(jvms.get(i).acquire(access(key, mode, LockType.READ)));
            }
            LockManager other = jvms.get(3);
            assertEquals(3, other.holders(key).size(), "three readers at once: " + other.holders(key));
            assertTrue(refused(other, access(key, mode, LockType.WRITE)), "a writer while readers read");
            assertEquals(3, other.holders(key).size(), "the refused writer left no row held");

            Future<LockHandle> writer = writerThread.submit(() -> other.acquire(access(key, mode, LockType.WRITE)));
            Await.until(() -> Places.held(other, LockRows.writer(key)), READ_WRITE_PATIENCE,
                    "the writer took its row and waits for the readers");
            assertTrue(refused(other, access(key, mode, LockType.READ)), "a new reader waits behind a waiting writer");
            long highestReader = readers.stream().mapToLong(LockHandle::token).max().orElseThrow();
            while (!readers.isEmpty()) {
                readers.remove(0).close();
            }
            try (LockHandle write = writer.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                assertEquals(LockRows.writer(key), Places.of(write));
                assertEquals(key, write.key(), "a handle names the lock key, not its row");
                assertEquals(HolderKind.WRITER, write.kind());
                assertEquals(0, write.slot());
                assertTrue(write.token() > highestReader, "the writer's token is above every earlier reader's");
                assertTrue(other.holders(key).stream().map(Places::of).toList().equals(List.of(Places.of(write))),
                        "the writer alone: " + other.holders(key));
                assertTrue(refused(jvms.get(1), access(key, mode, LockType.READ)), "a reader while a writer writes");
                assertTrue(refused(jvms.get(2), access(key, mode, LockType.WRITE)), "a second writer");
            }
            try (LockHandle reader = jvms.get(1).acquire(access(key, mode, LockType.READ))) {
                assertTrue(Places.of(reader).startsWith(key + LockRows.MARK + "r"), Places.of(reader));
                assertEquals(HolderKind.READER, reader.kind());
                assertTrue(reader.slot() >= 1 && reader.slot() <= LockRequest.MAX_READERS, "a reader slot: " + reader);
            }
        } finally {
            writerThread.shutdownNow();
            readers.forEach(ReadWriteContract::closeQuietly);
            jvms.forEach(LockManager::close);
        }
    }

    /** @return whether a try of the request was refused; a hold it got is released at once */
    private static boolean refused(LockManager locks, LockRequest request) {
        Optional<LockHandle> held = locks.tryAcquire(request);
        held.ifPresent(LockHandle::close);
        return held.isEmpty();
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void readersAndWritersCyclingNeverMeetAndReadersDoShare(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        ReadWriteHistoryChecker.Verdict verdict = cycle("rw:cycle:" + UUID.randomUUID(), mode, LockType.READ, 1, 5, 2, 10);
        assertEquals(List.of(), verdict.silent(), mode.toString());
        assertEquals(List.of(), verdict.signalled(), mode.toString());
        assertTrue(verdict.mostReadersAtOnce() >= 2, "readers never shared the key: " + verdict.mostReadersAtOnce());
    }

    /**
     * Three managers, as three JVMs, each with readers and a writer: their readers share a slot per
     * manager, each parks and releases it around its own writes, and every wait ends (a slot kept
     * for one manager's readers while another's writer waits for it would stall them all).
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void readersAndWritersOfThreeJvmsCyclingNeverMeetNorStall(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:jvms:" + UUID.randomUUID();
        try (LockLogCapture log = LockLogCapture.of(key)) {
            ReadWriteHistoryChecker.Verdict verdict = cycle(key, mode, LockType.READ, 3, 3, 1, 8);
            // seen once in CI (H2, OPTIMISTIC, 2026-12-02) and not since: the rows' holds in order, should it come again
            assertEquals(List.of(), verdict.silent(), () -> mode + "; the lock's log of the key:\n" + log.lines());
            assertEquals(List.of(), verdict.signalled(), () -> mode + "; the lock's log of the key:\n" + log.lines());
            assertTrue(verdict.mostReadersAtOnce() >= 2, "readers never shared the key: " + verdict.mostReadersAtOnce());
        }
    }

    /**
     * The negative control of the test above: its measure of sharing does see readers that secretly
     * take an exclusive lock run one at a time.
     */
    @Test
    default void theSharingMeasureSeesReadersThatTakeAnExclusiveLockRunOneAtATime() throws Exception {
        ReadWriteHistoryChecker.Verdict verdict = cycle("rw:control:" + UUID.randomUUID(), LockMode.OPTIMISTIC,
                LockType.EXCLUSIVE, 1, 5, 0, 4);
        assertEquals(List.of(), verdict.silent());
        assertEquals(1, verdict.mostReadersAtOnce(), "an exclusive lock had two holders inside at once");
    }

    /**
     * Readers (of the type given: READ, or EXCLUSIVE for the control) and writers cycling on one key,
     * that many of each in each of that many managers.
     */
    private ReadWriteHistoryChecker.Verdict cycle(String key, LockMode mode, LockType readType, int managers,
                                                  int readerThreads, int writerThreads, int cycles) throws Exception {
        List<Access> accesses = Collections.synchronizedList(new ArrayList<>());
        int threads = readerThreads + writerThreads;
        ExecutorService pool = Executors.newFixedThreadPool(managers * threads);
        List<LockManager> jvms = new ArrayList<>();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < managers * threads; t++) {
                if (t % threads == 0) {
                    jvms.add(readWriteManager());
                }
                LockManager locks = jvms.get(t / threads);
                String process = "manager" + (t / threads) + "/";
                boolean writes = t % threads >= readerThreads;
                LockRequest request = access(key, mode, writes ? LockType.WRITE : readType);
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < cycles; i++) {
                        LockHandle held = locks.acquire(request);
                        long enter = System.nanoTime();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
                        long exit = System.nanoTime();
                        boolean lost = !held.isValid();
                        try {
                            held.close();
                        } catch (LockLostException told) {
                            lost = true;
                        }
                        accesses.add(new Access(writes, Places.of(held), new CriticalSection(process + Thread.currentThread().getName(),
                                held.token(), enter, exit, lost)));
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            jvms.forEach(LockManager::close);
        }
        assertEquals(managers * threads * cycles, accesses.size());
        return ReadWriteHistoryChecker.check(accesses);
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aReadInsideAWriteIsAllowedAndAWriteInsideAReadIsRefused(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:nested:" + UUID.randomUUID();
        try (LockManager locks = readWriteManager()) {
            try (LockHandle write = locks.acquire(access(key, mode, LockType.WRITE))) {
                try (LockHandle read = locks.acquire(access(key, mode, LockType.READ))) {
                    assertEquals(Places.of(write), Places.of(read), "the read inside the write holds the write");
                    assertEquals(write.token(), read.token());
                }
                assertTrue(write.isValid());
            }
            try (LockHandle read = locks.acquire(access(key, mode, LockType.READ))) {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> locks.acquire(access(key, mode, LockType.WRITE)));
                assertTrue(refused.getMessage().contains("while this thread reads it"), refused.getMessage());
                try (LockHandle again = locks.acquire(access(key, mode, LockType.READ))) {
                    assertEquals(Places.of(read), Places.of(again), "a read inside a read re-enters its slot");
                }
            }
            // an OPTIMISTIC slot stays held a moment for this JVM's next reader or writer
            awaitNoHolder(locks, key, "the slot released once the reads ended");
        }
    }

    /** Waits until the key has no holder: a JVM's emptied optimistic slot stays held a moment. */
    private static void awaitNoHolder(LockManager locks, String key, String what) throws InterruptedException {
        Await.until(() -> locks.holders(key).isEmpty(), READ_WRITE_PATIENCE, what);
    }

    /**
     * Eight reader threads that never stop, and one writer: the writer gets the key within a bound that
     * separates "not starved" from "starved". Once the writer holds its row no reader enters, so it
     * waits for the reads already in to end (one hold, 200 ms), then for its next look at the slots
     * (at most the backoff's longest pause, 50 ms), plus its own few statements: well under a second.
     * The bound is 10 s, 200 of those longest pauses: room for statements that take hundreds of
     * milliseconds on a loaded machine. A read holds 200 ms, long beside its own statements, so that
     * the readers are nearly always in: a writer without that preference must find all eight out at
     * once, and did not within 30 s on H2, MariaDB and PostgreSQL in either mode when readers were made
     * to ignore it (with 5 ms holds, such a writer got in after 4-10 s, and sometimes sooner).
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aStreamOfReadersDoesNotStarveAWriter(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        int readerThreads = 8;
        Duration readerHold = Duration.ofMillis(200);
        Duration starvedBeyond = Duration.ofSeconds(10);
        String key = "rw:starve:" + UUID.randomUUID();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch everyReaderRead = new CountDownLatch(readerThreads);
        ExecutorService readers = Executors.newFixedThreadPool(readerThreads);
        try (LockManager readerJvm = readWriteManager(); LockManager writerJvm = readWriteManager()) {
            List<Future<Integer>> loops = new ArrayList<>();
            for (int t = 0; t < readerThreads; t++) {
                loops.add(readers.submit(() -> {
                    int reads = 0;
                    while (!stop.get()) {
                        try (LockHandle ignored = readerJvm.acquire(access(key, mode, LockType.READ))) {
                            LockSupport.parkNanos(readerHold.toNanos());
                            if (reads++ == 0) {
                                everyReaderRead.countDown();
                            }
                        }
                    }
                    return reads;
                }));
            }
            // told by the readers themselves: an operator's read of the table is not what is tested here
            assertTrue(everyReaderRead.await(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS),
                    "within " + READ_WRITE_PATIENCE + ", not every reader read");
            long started = System.nanoTime();
            try (LockHandle write = writerJvm.acquire(access(key, mode, LockType.WRITE))) {
                long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                System.out.println("rw-starvation " + mode + ": the writer waited " + waitedMillis + " ms under "
                        + readerThreads + " readers");
                assertTrue(write.isValid());
                assertTrue(waitedMillis <= starvedBeyond.toMillis(), "the writer waited " + waitedMillis
                        + " ms under " + readerThreads + " readers, beyond " + starvedBeyond + ": starved");
            } finally {
                stop.set(true);
            }
            for (Future<Integer> loop : loops) {
                assertTrue(loop.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS) > 0, "every reader read");
            }
        } finally {
            stop.set(true);
            readers.shutdownNow();
        }
    }

    /**
     * What a reader's token means: never above the last writer's, and below the token of every writer that
     * enters after the read, on every store and configuration, also once a cleanup deleted the key's idle
     * writer row (the reader then shows 0). It is not always the last writer's: with clock tokens the writer
     * row keeps the last committed token, below the one a writer used and rolled back; after a cleanup it is 0.
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aReadersTokenIsNeverAboveTheLastWritersAndBelowEveryLaterWritersEvenAfterACleanup(LockMode mode)
            throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:reader-token:" + UUID.randomUUID();
        try (LockManager writers = readWriteManager(); LockManager readers = readWriteManager()) {
            long written;
            try (LockHandle write = writers.acquire(access(key, mode, LockType.WRITE))) {
                written = write.token();
            }
            long read;
            try (LockHandle reading = readers.acquire(access(key, mode, LockType.READ))) {
                read = reading.token();
            }
            assertTrue(read <= written, "a reader's token " + read + " above the last writer's " + written);
            awaitNoHolder(writers, key, "the reader's slot released");
            // idle for a microsecond: the writer row, free since the write, goes
            readWriteStore().deleteIdleRows(Duration.ofNanos(1000));
            long readAfterCleanup;
            try (LockHandle reading = readers.acquire(access(key, mode, LockType.READ))) {
                readAfterCleanup = reading.token();
            }
            assertTrue(readAfterCleanup <= written, "a reader's token " + readAfterCleanup + " above the last writer's "
                    + written + " after a cleanup");
            try (LockHandle write = writers.acquire(access(key, mode, LockType.WRITE))) {
                assertTrue(write.token() > Math.max(read, readAfterCleanup) && write.token() > written,
                        "a later writer's token " + write.token() + " not above the readers' (" + read + ", "
                                + readAfterCleanup + ") and the last writer's " + written);
            }
        }
    }

    /**
     * Readers of one JVM arriving together without waiting ({@code tryAcquire}, {@code maxWait = 0}) each form
     * a group of their own while another is forming one: every group they formed is released once they all
     * left, none is kept for good, and a writer of another JVM gets in. Closing the manager leaves nothing
     * held either. A {@code PESSIMISTIC} former holds a connection for its slot and borrows one more for its
     * look at the writer row: four of them need half of the suite's pool of 16, eight could drain it and
     * wait for the pool (an answer of "no connection" counts as not acquired).
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void readersArrivingTogetherWithoutWaitingLeaveNoSlotHeld(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:together:" + UUID.randomUUID();
        int readerThreads = mode == LockMode.PESSIMISTIC ? 4 : 8;
        int rounds = 50;
        CyclicBarrier together = new CyclicBarrier(readerThreads);
        ExecutorService pool = Executors.newFixedThreadPool(readerThreads);
        try (LockManager other = readWriteManager()) {
            LockManager jvm = readWriteManager();
            try {
                List<Future<Integer>> readers = new ArrayList<>();
                for (int t = 0; t < readerThreads; t++) {
                    readers.add(pool.submit(() -> {
                        int reads = 0;
                        for (int round = 0; round < rounds; round++) {
                            together.await(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS);
                            try {
                                Optional<LockHandle> read = jvm.tryAcquire(access(key, mode, LockType.READ));
                                if (read.isPresent()) {
                                    reads++;
                                    read.get().close();
                                }
                            } catch (LockNotAcquiredException noConnection) {
                                // no connection within the wait: not acquired
                            } catch (RuntimeException | Error failure) {
                                together.reset(); // the others stop waiting for this reader at once
                                throw failure;
                            }
                        }
                        return reads;
                    }));
                }
                int reads = 0;
                ExecutionException failed = null;
                for (Future<Integer> reader : readers) {
                    try {
                        reads += reader.get(120, TimeUnit.SECONDS);
                    } catch (ExecutionException readerFailed) {
                        // a reader that failed broke the barrier for the others: its own failure is the one to tell
                        if (failed == null || failed.getCause() instanceof BrokenBarrierException) {
                            failed = readerFailed;
                        }
                    }
                }
                if (failed != null) {
                    throw failed;
                }
                assertTrue(reads > 0, "no reader ever read");
                awaitNoHolder(other, key, "every slot this JVM's readers took was released once they left");
                try (LockHandle write = other.acquire(access(key, mode, LockType.WRITE))) {
                    assertTrue(write.isValid(), "a writer of another JVM got in");
                }
            } finally {
                jvm.close();
            }
            assertEquals(List.of(), other.holders(key), "nothing held once the readers' manager closed");
        } finally {
            pool.shutdownNow();
        }
    }

    /** A JVM's readers share one slot: the table shows one reader per JVM, not per thread. */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void theReadersOfOneJvmShareASlotAndAnotherJvmsReadersTakeTheirOwn(LockMode mode) throws Exception {
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:group:" + UUID.randomUUID();
        ExecutorService secondThread = Executors.newSingleThreadExecutor();
        try (LockManager jvm = readWriteManager(); LockManager other = readWriteManager()) {
            try (LockHandle first = jvm.acquire(access(key, mode, LockType.READ));
                 LockHandle second = secondThread.submit(() -> jvm.acquire(access(key, mode, LockType.READ)))
                         .get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                assertEquals(Places.of(first), Places.of(second), "two readers of one JVM in one slot");
                assertEquals(first.token(), second.token());
                assertEquals(List.of(Places.of(first)), other.holders(key).stream().map(Places::of).toList());
                try (LockHandle elsewhere = other.acquire(access(key, mode, LockType.READ))) {
                    assertTrue(!Places.of(elsewhere).equals(Places.of(first)), "another JVM's reader takes a slot of its own");
                    assertEquals(2, other.holders(key).size(), other.holders(key).toString());
                }
                first.close();
                assertTrue(second.isValid(), "the slot stays held for the reader still inside");
                Await.until(() -> other.holders(key).stream().map(Places::of).toList().equals(List.of(Places.of(second))),
                        READ_WRITE_PATIENCE, "the other JVM's slot released, this JVM's held for its reader");
            }
            awaitNoHolder(other, key, "the last reader out released the slot");
        } finally {
            secondThread.shutdownNow();
        }
    }

    /**
     * An operator ending a JVM's shared slot ends its readers' hold: the readers inside learn it at the
     * slot's next renewal ({@code isValid()}, then {@code LockLostException} at their release), as an
     * exclusive holder does; a reader that left first is not told (its leaving sends nothing), nor is the
     * last one if it leaves before that renewal (its slot stays held a moment for the JVM's next reader,
     * and that release finds the loss). {@code OPTIMISTIC}: ending a {@code PESSIMISTIC} hold is a
     * database's own ({@code InspectionContract}).
     */
    @Test
    default void aForcedReleaseOfASharedSlotIsToldToItsReaders() throws Exception {
        LockMode mode = LockMode.OPTIMISTIC;
        String key = "rw:forced:" + UUID.randomUUID();
        // a short lease: the renewal that finds the loss comes within a third of it
        LockRequest read = access(key, mode, LockType.READ).lease(Duration.ofSeconds(3));
        ExecutorService secondThread = Executors.newSingleThreadExecutor();
        try (LockManager jvm = readWriteManager(); LockManager operator = readWriteManager()) {
            LockHandle first = jvm.acquire(read);
            LockHandle second = secondThread.submit(() -> jvm.acquire(read)).get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(Places.of(first), Places.of(second));
            assertTrue(Places.forceRelease(operator, Places.of(first)).isPresent(), "the shared slot's hold was ended");
            Await.invalid(second, READ_WRITE_PATIENCE, "the readers inside learn the loss at the slot's next renewal");
            assertTrue(!first.isValid(), "every reader inside shares the slot's hold");
            assertThrows(LockLostException.class, first::close, "a reader that leaves after the renewal is told");
            assertThrows(LockLostException.class, second::close, "so is the last");
            awaitNoHolder(operator, key, "the lost slot is let go");
            try (LockHandle after = jvm.acquire(access(key, mode, LockType.READ))) {
                assertTrue(after.isValid(), "a reader after the loss holds a slot of its own");
                assertEquals(1, operator.holders(key).size());
            }
        } finally {
            secondThread.shutdownNow();
        }
    }

    /**
     * A {@code PESSIMISTIC} group's database session that ends (killed, failed over, timed out) frees its row
     * locks at once, and a writer of another JVM may enter: every reader of the group learns of it at its
     * release at the latest, as an exclusive holder learns it from its commit, the first to leave as much as
     * the last. The watchdog's session check is an hour away here, so only the release can tell.
     */
    @Test
    default void pessimisticReadersLearnAtTheirReleaseThatTheirGroupsSessionEnded() throws Exception {
        LockMode mode = LockMode.PESSIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:session-ended:" + UUID.randomUUID();
        ExecutorService secondThread = Executors.newSingleThreadExecutor();
        try (LockManager jvm = LockManagerBuilder.on(readWriteStore()).sessionCheckEvery(Duration.ofHours(1)).build();
             LockManager other = readWriteManager()) {
            LockHandle first = jvm.acquire(access(key, mode, LockType.READ));
            LockHandle second = secondThread.submit(() -> jvm.acquire(access(key, mode, LockType.READ)))
                    .get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(Places.of(first), Places.of(second), "two readers of one JVM in one slot");
            endSessionsInTransactionFromOutside();
            try (LockHandle write = other.acquire(access(key, mode, LockType.WRITE))) {
                assertTrue(write.isValid(), "a writer of another JVM entered once the readers' session was gone");
            }
            assertThrows(LockLostException.class, first::close, "the first reader to leave is told");
            assertThrows(LockLostException.class, second::close, "so is the last");
        } finally {
            secondThread.shutdownNow();
        }
    }

    /**
     * A writer passes an empty slot of its own JVM's readers only while that slot's row is still theirs:
     * after an operator ended the slot's lease and another JVM's reader took the row and entered, the
     * JVM's writer waits for that reader, though its own readers' group still believes it holds the slot
     * (an optimistic hold learns of a forced release at its next renewal).
     */
    @Test
    default void aWriterWaitsForAnotherJvmsReaderInASlotItsOwnReadersLost() throws Exception {
        LockMode mode = LockMode.OPTIMISTIC;
        String key = "rw:lost-slot:" + UUID.randomUUID();
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        List<LockManager> others = new ArrayList<>();
        List<LockHandle> otherSlots = new ArrayList<>();
        try (LockManager jvm = readWriteManager(); LockManager operator = readWriteManager()) {
            LockHandle ownRead = jvm.acquire(access(key, mode, LockType.READ));
            String slot = Places.of(ownRead);
            for (int i = 1; i < LockRequest.MAX_READERS; i++) {
                others.add(readWriteManager());
                otherSlots.add(others.get(others.size() - 1).acquire(access(key, mode, LockType.READ)));
            }
            assertTrue(Places.forceRelease(operator, slot).isPresent(), "the operator ended the JVM's shared slot");
            others.add(readWriteManager());
            LockHandle foreignRead = others.get(others.size() - 1).acquire(access(key, mode, LockType.READ));
            assertEquals(slot, Places.of(foreignRead), "the only free slot: the one the JVM's readers lost");
            for (LockHandle other : otherSlots) {
                other.close();
            }
            assertTrue(!writesWhenItsLastReaderLeaves(jvm, operator, key, mode, ownRead, writerThread),
                    "the writer entered beside another JVM's reader");
            foreignRead.close();
        } finally {
            writerThread.shutdownNow();
            otherSlots.forEach(ReadWriteContract::closeQuietly);
            others.forEach(LockManager::close);
        }
    }

    /**
     * As {@link #aWriterWaitsForAnotherJvmsReaderInASlotItsOwnReadersLost}, {@code PESSIMISTIC}: an operator
     * ended the session of the JVM's readers' slot, and another JVM took the slot row. The JVM's readers do
     * not know it yet (their session check is minutes away), and the row shows no token the writer could
     * compare. The writer waits for that reader: like every pessimistic reader, it shares the key's shared
     * row, which the writer must have alone before it looks at the slots.
     */
    @Test
    default void aWriterWaitsForAnotherHolderOfAPessimisticSlotItsOwnReadersLost() throws Exception {
        LockMode mode = LockMode.PESSIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:lost-pessimistic-slot:" + UUID.randomUUID();
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        PessimisticHold foreign = null;
        try (LockManager jvm = LockManagerBuilder.on(readWriteStore()).sessionCheckEvery(Duration.ofMinutes(10)).build();
             LockManager operator = readWriteManager()) {
            LockHandle ownRead = jvm.acquire(access(key, mode, LockType.READ));
            String slot = Places.of(ownRead);
            try {
                assertTrue(Places.forceRelease(operator, slot).isPresent(), "the operator ended the JVM's readers' session");
            } catch (IllegalStateException cannotEndSessions) {
                closeQuietly(ownRead);
                assumeTrue(false, "this store cannot end a pessimistic holder's session: " + cannotEndSessions.getMessage());
            }
            // another JVM's reader that took the free slot row, as the one free slot it found, and shares the
            // key's shared row in the slot's transaction, as every pessimistic reader does before it enters
            foreign = readWriteStore().lockPessimistic(slot, "another-jvm", "another JVM's reader", READ_WRITE_PATIENCE);
            assertTrue(foreign != null, "the slot row was free once the session ended");
            assertEquals(PessimisticHold.AnotherRow.LOCKED, foreign.lockAnotherRow(LockRows.shared(key), true),
                    "the other JVM's reader shares the shared row");
            assertTrue(ownRead.isValid(), "the JVM's readers have not learnt of the loss yet");
            assertTrue(!writesWhenItsLastReaderLeaves(jvm, operator, key, mode, ownRead, writerThread),
                    "the writer entered beside another JVM's reader");
        } finally {
            if (foreign != null) {
                foreign.release();
            }
            writerThread.shutdownNow();
        }
    }

    /**
     * A writer of {@code jvm} takes the writer row and waits for the readers; then the JVM's last reader
     * leaves while the writer holds its row, which parks the slot if the JVM believes it still holds it.
     *
     * @return whether the writer got in within 3 s
     */
    private boolean writesWhenItsLastReaderLeaves(LockManager jvm, LockManager operator, String key, LockMode mode,
                                                  LockHandle lastRead, ExecutorService writerThread) throws Exception {
        Future<Boolean> wrote = writerThread.submit(() -> {
            try (LockHandle write = jvm.acquire(access(key, mode, LockType.WRITE).maxWait(Duration.ofSeconds(3)))) {
                return write.isValid();
            } catch (LockNotAcquiredException notWithinTheWait) {
                return false;
            }
        });
        Await.until(() -> Places.held(operator, LockRows.writer(key)), READ_WRITE_PATIENCE,
                "the writer took its row and waits for the readers");
        try {
            lastRead.close();
        } catch (LockLostException told) {
            // the JVM's readers, or its writer's check, may have found the loss already
        }
        return wrote.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * An optimistic group whose last reader leaves while its JVM's writer holds the writer row keeps its slot
     * for the readers after the write: the writer does not wait for it, and they join it, showing the
     * writer's token.
     */
    @Test
    default void aWriteOfTheReadersJvmParksTheirOptimisticSlotForTheReadersAfterIt() throws Exception {
        LockMode mode = LockMode.OPTIMISTIC;
        String key = "rw:park:" + UUID.randomUUID();
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        ExecutorService readerThread = Executors.newSingleThreadExecutor();
        Future<LockHandle> laterRead = null;
        try (LockManager jvm = readWriteManager(); LockManager operator = readWriteManager()) {
            LockHandle firstRead = jvm.acquire(access(key, mode, LockType.READ));
            String slot = Places.of(firstRead);
            Thread[] writer = new Thread[1];
            Future<LockHandle> write = writerThread.submit(() -> {
                writer[0] = Thread.currentThread();
                return jvm.acquire(access(key, mode, LockType.WRITE));
            });
            // its row is in the table a moment before the writer knows it holds it: wait until it waits
            Await.until(() -> Places.held(operator, LockRows.writer(key)) && writer[0] != null
                            && writer[0].getState() == Thread.State.TIMED_WAITING, READ_WRITE_PATIENCE,
                    "the writer took its row and waits for the reader");
            Thread[] laterReader = new Thread[1];
            laterRead = readerThread.submit(() -> {
                laterReader[0] = Thread.currentThread();
                return jvm.acquire(access(key, mode, LockType.READ));
            });
            Await.until(() -> laterReader[0] != null && laterReader[0].getState() == Thread.State.TIMED_WAITING,
                    READ_WRITE_PATIENCE, "a later reader waits behind the writer");
            firstRead.close();
            try (LockHandle writing = write.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                assertTrue(Places.held(operator, slot), "the emptied slot stays held while its JVM's writer writes");
                assertTrue(!laterRead.isDone(), "no reader beside the writer");
                long writerToken = writing.token();
                writing.close();
                try (LockHandle read = laterRead.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                    assertEquals(slot, Places.of(read), "the reader after the write joined the parked slot");
                    assertEquals(writerToken, read.token(), "and shows the writer's token, the last writer's");
                }
            }
            awaitNoHolder(operator, key, "released once no reader came for it");
        } finally {
            if (laterRead != null && laterRead.isDone() && !laterRead.isCancelled()) {
                try {
                    closeQuietly(laterRead.get());
                } catch (Exception failedToRead) {
                    // nothing held
                }
            }
            writerThread.shutdownNow();
            readerThread.shutdownNow();
        }
    }

    /**
     * A pessimistic group is not parked: its slot's transaction shares the key's shared row, which its
     * JVM's writer must lock exclusively. The writer gets in once the last reader left, the slot released.
     */
    @Test
    default void aWriteOfThePessimisticReadersJvmGetsInOnceTheirSlotIsReleased() throws Exception {
        LockMode mode = LockMode.PESSIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:no-park:" + UUID.randomUUID();
        ExecutorService writerThread = Executors.newSingleThreadExecutor();
        try (LockManager jvm = readWriteManager(); LockManager operator = readWriteManager()) {
            LockHandle firstRead = jvm.acquire(access(key, mode, LockType.READ));
            String slot = Places.of(firstRead);
            Future<LockHandle> write = writerThread.submit(() -> jvm.acquire(access(key, mode, LockType.WRITE)));
            Await.until(() -> Places.held(operator, LockRows.writer(key)), READ_WRITE_PATIENCE,
                    "the writer took its row and waits for the reader");
            assertTrue(!write.isDone(), "the writer waits while its JVM's reader reads");
            firstRead.close();
            try (LockHandle writing = write.get(READ_WRITE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                assertTrue(!Places.held(operator, slot), "the emptied slot was released, not parked");
                assertEquals(List.of(Places.of(writing)), operator.holders(key).stream().map(Places::of).toList());
            }
            try (LockHandle read = jvm.acquire(access(key, mode, LockType.READ))) {
                assertTrue(read.isValid() && Places.held(operator, Places.of(read)), "the reader after the write took a slot");
            }
            assertEquals(List.of(), operator.holders(key), "nothing held once all left");
        } finally {
            writerThread.shutdownNow();
        }
    }

    /**
     * {@code PESSIMISTIC} readers lock the key's shared row shared ({@code FOR SHARE}, {@code LOCK IN SHARE
     * MODE}, {@code PESSIMISTIC_READ}), each group in its slot's transaction, and the writer locks it
     * exclusively: while readers of two JVMs read, another transaction can share the row but not lock it
     * alone; while the writer writes, it can do neither; once all left, it can lock it alone.
     */
    @Test
    default void pessimisticReadersShareTheKeysSharedRowAndTheWriterHasItAlone() throws Exception {
        LockMode mode = LockMode.PESSIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:shared-row:" + UUID.randomUUID();
        String sharedRow = LockRows.shared(key);
        try (LockManager first = readWriteManager(); LockManager second = readWriteManager()) {
            try (LockHandle one = first.acquire(access(key, mode, LockType.READ));
                 LockHandle two = second.acquire(access(key, mode, LockType.READ))) {
                assertTrue(!Places.of(one).equals(Places.of(two)), "two JVMs' readers, in two slots");
                assertEquals(PessimisticHold.AnotherRow.LOCKED, anotherTransactionLocks(sharedRow, true),
                        "another transaction shares the row beside the readers");
                assertEquals(PessimisticHold.AnotherRow.BUSY, anotherTransactionLocks(sharedRow, false),
                        "no transaction has the row alone while readers read");
                assertEquals(List.of(Places.of(one), Places.of(two)).stream().sorted().toList(),
                        first.holders(key).stream().map(Places::of).sorted().toList(),
                        "holders() lists the readers' slots, not the shared row");
                assertTrue(first.list(key, null, 1000).stream().noneMatch(info -> Places.of(info).equals(sharedRow)),
                        "list() shows no place for the shared row either: " + first.list(key, null, 1000));
            }
            try (LockHandle write = first.acquire(access(key, mode, LockType.WRITE))) {
                assertEquals(PessimisticHold.AnotherRow.BUSY, anotherTransactionLocks(sharedRow, true),
                        "no transaction shares the row while the writer writes");
            }
            assertEquals(PessimisticHold.AnotherRow.LOCKED, anotherTransactionLocks(sharedRow, false),
                    "free once the readers and the writer left");
        }
    }

    /**
     * The modes mix on one key: a writer of either mode waits for another JVM's reader of the other. A
     * {@code PESSIMISTIC} writer, holding the shared row alone, keeps out only pessimistic readers, so its
     * look at the slots must still find an optimistic reader's lease; an optimistic writer must find a
     * pessimistic reader's row lock.
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aWriterWaitsForAnotherJvmsReaderOfTheOtherMode(LockMode writerMode) throws Exception {
        assumeTrue(runs(LockMode.PESSIMISTIC), whyNot(LockMode.PESSIMISTIC));
        LockMode readerMode = writerMode == LockMode.PESSIMISTIC ? LockMode.OPTIMISTIC : LockMode.PESSIMISTIC;
        String key = "rw:modes:" + UUID.randomUUID();
        try (LockManager readers = readWriteManager(); LockManager writers = readWriteManager()) {
            long readerToken;
            try (LockHandle read = readers.acquire(access(key, readerMode, LockType.READ))) {
                readerToken = read.token();
                assertTrue(refused(writers, access(key, writerMode, LockType.WRITE)),
                        "a " + writerMode + " writer beside another JVM's " + readerMode + " reader");
                assertEquals(List.of(Places.of(read)), writers.holders(key).stream().map(Places::of).toList(),
                        "the refused writer left no row held");
            }
            try (LockHandle write = writers.acquire(access(key, writerMode, LockType.WRITE))) {
                assertTrue(write.token() > readerToken, "the writer's token is above the reader's");
                assertTrue(refused(readers, access(key, readerMode, LockType.READ)),
                        "a " + readerMode + " reader beside another JVM's " + writerMode + " writer");
            }
        }
    }

    /**
     * A JVM's emptied {@code OPTIMISTIC} slot stays held a moment ({@link LockManagerBuilder#keepReaderSlotsFor};
     * a minute here, to see it): the JVM's next reader joins it, its next writer writes beside it and keeps it
     * for the readers after the write, which join it showing the writer's token; a writer of another JVM
     * waits for it; closing the manager releases it at once.
     */
    @Test
    default void anEmptiedOptimisticSlotIsKeptForItsJvmsNextReaderOrWriter() throws Exception {
        LockMode mode = LockMode.OPTIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:keep:" + UUID.randomUUID();
        try (LockManager operator = readWriteManager()) {
            LockManager jvm = LockManagerBuilder.on(readWriteStore()).keepReaderSlotsFor(Duration.ofMinutes(1)).build();
            try {
                String slot;
                long firstToken;
                try (LockHandle read = jvm.acquire(access(key, mode, LockType.READ))) {
                    slot = Places.of(read);
                    firstToken = read.token();
                }
                assertEquals(List.of(slot), heldKeys(operator, key), "the emptied slot stays held");
                try (LockHandle read = jvm.acquire(access(key, mode, LockType.READ))) {
                    assertEquals(slot, Places.of(read), "the next reader joined the kept slot");
                    assertEquals(firstToken, read.token());
                }
                long writerToken;
                try (LockHandle write = jvm.acquire(access(key, mode, LockType.WRITE))) {
                    writerToken = write.token();
                    assertEquals(List.of(slot, Places.of(write)).stream().sorted().toList(), heldKeys(operator, key),
                            "the JVM's writer wrote beside its own kept slot");
                }
                try (LockHandle read = jvm.acquire(access(key, mode, LockType.READ))) {
                    assertEquals(slot, Places.of(read), "the reader after the write joined the slot kept through it");
                    assertEquals(writerToken, read.token(), "showing the writer's token");
                }
                assertTrue(refused(operator, access(key, mode, LockType.WRITE)), "a writer of another JVM waits for it");
            } finally {
                jvm.close();
            }
            assertEquals(List.of(), operator.holders(key), "closing the manager released the kept slot at once");
        }
    }

    /** A kept slot is released when its keep ends: a writer of another JVM waiting for it gets in. */
    @Test
    default void aKeptSlotIsReleasedWhenItsKeepEnds() throws Exception {
        LockMode mode = LockMode.OPTIMISTIC;
        assumeTrue(runs(mode), whyNot(mode));
        String key = "rw:keep-ends:" + UUID.randomUUID();
        try (LockManager jvm = LockManagerBuilder.on(readWriteStore()).keepReaderSlotsFor(Duration.ofMillis(300)).build();
             LockManager other = readWriteManager()) {
            jvm.acquire(access(key, mode, LockType.READ)).close();
            try (LockHandle write = other.acquire(access(key, mode, LockType.WRITE))) {
                assertEquals(List.of(Places.of(write)), heldKeys(other, key), "the writer alone, the JVM's manager still open");
            }
        }
    }

    private static List<String> heldKeys(LockManager locks, String key) {
        return locks.holders(key).stream().map(Places::of).sorted().toList();
    }

    /** @return what another transaction, holding a row of its own, finds when it locks the row beside it */
    private PessimisticHold.AnotherRow anotherTransactionLocks(String rowKey, boolean shared) {
        PessimisticHold own = readWriteStore().lockPessimistic("rw:another-transaction:" + UUID.randomUUID(), "test",
                "another transaction", READ_WRITE_PATIENCE);
        assertTrue(own != null, "a key of its own is free");
        try {
            return own.lockAnotherRow(rowKey, shared);
        } finally {
            own.release();
        }
    }

    /**
     * Where the store has no shared row locks (H2, HSQLDB, Derby; EclipseLink on any database), a
     * {@code PESSIMISTIC} reader or writer is refused with the reason before any row is touched; the
     * optimistic read/write lock works there.
     */
    @Test
    default void pessimisticReadWriteIsRefusedWithTheReasonWhereTheStoreHasNoSharedRowLocks() {
        Optional<String> refusal = readWriteStore().refusal(LockMode.PESSIMISTIC, LockType.READ);
        assumeTrue(refusal.isPresent(), "this store has shared row locks: pessimisticReadersShareTheKeysSharedRow...");
        assertTrue(refusal.get().contains("shared row lock") && refusal.get().contains("OPTIMISTIC"), refusal.get());
        assertEquals(refusal, readWriteStore().refusal(LockMode.PESSIMISTIC, LockType.WRITE));
        assertEquals(Optional.empty(), readWriteStore().refusal(LockMode.PESSIMISTIC, LockType.EXCLUSIVE));
        String key = "rw:refused:" + UUID.randomUUID();
        try (LockManager locks = readWriteManager()) {
            for (LockType type : List.of(LockType.READ, LockType.WRITE)) {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> locks.acquire(access(key, LockMode.PESSIMISTIC, type)));
                assertTrue(refused.getMessage().contains("PESSIMISTIC " + type) && refused.getMessage().contains(refusal.get()),
                        refused.getMessage());
            }
            assertEquals(List.of(), locks.holders(key), "no row taken");
            try (LockHandle read = locks.acquire(access(key, LockMode.OPTIMISTIC, LockType.READ))) {
                assertTrue(read.isValid());
            }
        }
    }

    @Test
    default void readWriteMisuseIsRefusedNamingTheValue() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k").permits(2).read())
                .getMessage().contains("permits need type EXCLUSIVE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k".repeat(252)).write())
                .getMessage().contains("at most 251 characters for a read/write lock"));
        assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k").type(null));
        try (LockManager operator = readWriteManager()) {
            assertThrows(IllegalArgumentException.class, () -> operator.inspect("k\u001Fr33"));
            assertThrows(IllegalArgumentException.class, () -> operator.inspect("k\u001Fr01"));
            assertThrows(IllegalArgumentException.class, () -> operator.inspect("k\u001Fx"));
            assertTrue(!Places.held(operator, LockRows.readerSlot("rw:never:" + UUID.randomUUID(), 32)));
            assertTrue(!Places.held(operator, LockRows.writer("rw:never:" + UUID.randomUUID())));
        }
    }

    private static void closeQuietly(LockHandle handle) {
        try {
            handle.close();
        } catch (RuntimeException alreadyFailing) {
            // the test failed already: free what it held for the next one
        }
    }
}
