package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.contract.Await;
import io.locked.contract.PausableRepository;
import io.locked.jpa.fencing.PausedHolderView;
import io.locked.jpa.fencing.ServerView;
import io.locked.jpa.fencing.Stock;
import io.locked.jpa.fencing.StockTable;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.RollbackException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fenced write (promise 2) on one real database: a stock level protected by a lock, written
 * in the application's own transactions (plain JDBC and an EntityManager) on a pool of their own.
 * Every scenario keeps a ledger of the decrements that committed, and checks that the stock lost
 * none of them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class LockFenceSuite {
    private static final Duration SHORT_LEASE = Duration.ofMillis(500);
    private static final Duration LONG_WAIT = Duration.ofSeconds(30);
    private static final int INITIAL_STOCK = 10;

    /** How the application reaches its data. */
    enum Access { JDBC, JPA }

    private Store store;
    private HikariDataSource business;
    private EntityManagerFactory businessUnit;
    private StockTable stock;
    private final List<LockManager> managers = new ArrayList<>();
    // closed after each test, so that a failed test leaves no lock transaction open behind it
    private final List<LockHandle> handles = new ArrayList<>();
    // a new thread per task: a reused pool thread could still count as the holder of a key
    private ExecutorService threads;
    /** Decrements whose transaction committed, in this test. */
    private final AtomicInteger committedDecrements = new AtomicInteger();

    abstract TestDatabase database();

    /** @return the statements LockFence picks for a connection of this database, and for an EntityManager */
    abstract FenceStatements expectedForConnection();

    abstract FenceStatements expectedForEntityManager();

    /** Fences a JDBC transaction; a subclass may run other statements than the detected ones. */
    void fence(Connection connection, LockHandle handle) throws SQLException {
        LockFence.check(connection, handle);
    }

    @BeforeAll
    void open() throws SQLException {
        store = database().open(8);
        // H2's default lock wait (2 s) could end a fence that waits behind an open transaction
        business = database().pool(6, database() == TestDatabase.H2 ? Map.of("LOCK_TIMEOUT", "30000") : Map.of());
        businessUnit = database().entityManagerFactory(business, "locked-fence-test");
        stock = new StockTable(business);
    }

    @AfterAll
    void close() throws Exception {
        try {
            if (business != null) {
                assertEquals(0, business.getHikariPoolMXBean().getActiveConnections(), "business connections still borrowed");
                assertEquals(0, store.openTransactionsOnServer(), "transactions left open on the server");
            }
        } finally {
            if (businessUnit != null) {
                businessUnit.close();
            }
            if (business != null) {
                business.close();
            }
            if (store != null) {
                store.close();
            }
        }
    }

    @BeforeEach
    void startThreads() {
        committedDecrements.set(0);
        threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 0, TimeUnit.NANOSECONDS, new SynchronousQueue<>()) {
            @Override
            public void execute(Runnable command) {
                Thread thread = new Thread(command, "fence-" + UUID.randomUUID().toString().substring(0, 8));
                thread.setDaemon(true);
                thread.start();
            }
        };
    }

    @AfterEach
    void stopManagers() {
        for (LockHandle handle : handles) {
            try {
                handle.close(); // a no-op if the test closed it
            } catch (LockException alreadyLost) {
                // the scenario made it lose its lock
            }
        }
        handles.clear();
        threads.shutdownNow();
        managers.forEach(LockManager::close);
        managers.clear();
    }

    @Test
    void detectsTheStatementsOfItsDatabase() throws SQLException {
        try (Connection connection = business.getConnection()) {
            assertEquals(expectedForConnection(), FenceDetection.of(connection));
        }
        assertEquals(expectedForEntityManager(), FenceDetection.of(businessUnit));
    }

    @ParameterizedTest
    @EnumSource(Access.class)
    void pausedHoldersLateWriteIsRefusedAfterItsSuccessorWrote(Access access) throws Exception {
        String key = freshKey("paused");
        String item = freshItem();
        PausableRepository pausable = new PausableRepository(store.repository());
        LockHandle holder = held(manager(pausable).acquire(optimistic(key).lease(SHORT_LEASE)));
        int readBeforePause = stock.quantity(item);
        pausable.cutRenewals();
        LockHandle successor = takeOver(key);
        assertTrue(successor.token() > holder.token(), "the successor's token is higher");

        assertEquals(INITIAL_STOCK, decrement(access, item, successor));
        LockLostException refused = assertThrows(LockLostException.class,
                () -> writeStale(access, item, PausedHolderView.of(holder), readBeforePause - 1));

        assertEquals(key, refused.key());
        assertEquals(INITIAL_STOCK - 1, stock.quantity(item), "the paused holder's late write committed");
        assertNoLostUpdate(item);
        closeElsewhere(successor);

        // once its watchdog has run, the holder's own handle is refused before any statement:
        // a closed connection would otherwise fail as "store unavailable"
        Await.invalid(holder, Duration.ofSeconds(30), "the cut-off renewals");
        Connection closed = business.getConnection();
        closed.close();
        assertThrows(LockLostException.class, () -> LockFence.check(closed, holder));
        assertThrows(LockLostException.class, holder::close);
    }

    /**
     * An operator's forced release raises the key's fence: the old holder's next fenced write is
     * refused even before it learns of the release (no renewal or session check is due yet).
     */
    @ParameterizedTest
    @EnumSource(LockMode.class)
    void aForcedReleaseRefusesTheOldHoldersFencedWrite(LockMode mode) throws Exception {
        String key = freshKey("forced");
        String item = freshItem();
        LockManager unaware = LockManagerBuilder.on(store.repository()).sessionCheckEvery(Duration.ofMinutes(10)).build();
        managers.add(unaware);
        LockHandle holder = held(unaware.acquire(LockRequest.of(key).mode(mode).lease(Duration.ofMinutes(10))));
        int readBeforeRelease = stock.quantity(item);

        assertTrue(manager(store.repository()).forceRelease(key).isPresent(), "the hold was ended");

        assertTrue(holder.isValid(), "the old holder has not learnt of it yet: only the fence can refuse it");
        for (Access access : Access.values()) {
            assertThrows(LockLostException.class, () -> writeStale(access, item, holder, readBeforeRelease - 1), access.name());
        }
        assertEquals(INITIAL_STOCK, stock.quantity(item), "a refused write changed the stock");
    }

    /** The negative control: the same scenario without the fence loses an update, and the ledger shows it. */
    @ParameterizedTest
    @EnumSource(Access.class)
    void withoutTheFenceAPausedHoldersLateWriteLosesTheSuccessorsUpdate(Access access) throws Exception {
        String key = freshKey("unfenced");
        String item = freshItem();
        PausableRepository pausable = new PausableRepository(store.repository());
        LockHandle holder = held(manager(pausable).acquire(optimistic(key).lease(SHORT_LEASE)));
        int readBeforePause = stock.quantity(item);
        pausable.cutRenewals();
        LockHandle successor = takeOver(key);

        decrement(access, item, null);
        writeStale(access, item, null, readBeforePause - 1);

        assertEquals(2, committedDecrements.get());
        assertEquals(INITIAL_STOCK - 1, stock.quantity(item), "the late write overwrote the successor's");
        assertNotEquals(INITIAL_STOCK - committedDecrements.get(), stock.quantity(item),
                "the ledger check must see the lost update");
        closeElsewhere(successor);
        assertThrows(LockLostException.class, holder::close);
    }

    @Test
    void refusedEntityManagerTransactionCannotCommitEvenIfTheCallerIgnoresTheRefusal() throws Exception {
        String key = freshKey("ignored");
        String item = freshItem();
        LockHandle earlier = acquireElsewhere(LockRequest.of(key));
        closeElsewhere(earlier);
        LockHandle later = acquireElsewhere(LockRequest.of(key));
        decrement(Access.JPA, item, later);

        EntityManager entityManager = businessUnit.createEntityManager();
        try {
            entityManager.getTransaction().begin();
            assertThrows(LockLostException.class, () -> LockFence.check(entityManager, PausedHolderView.of(earlier)));
            assertTrue(entityManager.getTransaction().getRollbackOnly(), "the refused transaction is rollback-only");
            entityManager.find(Stock.class, item).setQuantity(INITIAL_STOCK - 1);
            try {
                entityManager.getTransaction().commit();
            } catch (RollbackException expected) {
                // JPA says so; Hibernate outside its JPA compliance mode rolls back without a word
            }
        } finally {
            if (entityManager.getTransaction().isActive()) {
                entityManager.getTransaction().rollback();
            }
            entityManager.close();
        }
        assertEquals(INITIAL_STOCK - 1, stock.quantity(item), "the refused transaction committed its write");
        assertNoLostUpdate(item);
        closeElsewhere(later);
    }

    @ParameterizedTest(name = "key fenced before: {0}")
    @ValueSource(booleans = {false, true})
    void successorWhoseFenceMeetsAnOpenPredecessorWaitsAndReadsItsWrite(boolean fencedBefore) throws Exception {
        String key = freshKey("ordering");
        String item = freshItem();
        PausableRepository pausable = new PausableRepository(store.repository());
        LockHandle holder = held(manager(pausable).acquire(optimistic(key).lease(SHORT_LEASE)));
        if (fencedBefore) {
            decrement(Access.JDBC, item, holder);
        }
        int before = stock.quantity(item);
        try (Connection predecessor = business.getConnection()) {
            predecessor.setAutoCommit(false);
            fence(predecessor, holder);
            StockTable.write(predecessor, item, StockTable.read(predecessor, item) - 1);
            // the holder stalls here with its transaction open, until its lease is gone and the lock taken over
            pausable.cutRenewals();
            LockHandle successor = takeOver(key);
            Future<Integer> second = threads.submit(() -> decrement(Access.JDBC, item, successor));

            ServerView.awaitFenceWait(database(), second);
            assertFalse(second.isDone(), "the successor's transaction went on past the open predecessor");
            predecessor.commit();
            committedDecrements.incrementAndGet();
            predecessor.setAutoCommit(true);

            assertEquals(before - 1, second.get(60, TimeUnit.SECONDS), "the successor read the predecessor's write");
            closeElsewhere(successor);
        }
        assertEquals(before - 2, stock.quantity(item));
        assertNoLostUpdate(item);
        assertThrows(LockLostException.class, holder::close);
    }

    @ParameterizedTest(name = "key fenced before: {0}")
    @ValueSource(booleans = {false, true})
    void lowerTokenWaitingBehindAHigherTokensOpenTransactionIsRefusedOnceItCommits(boolean fencedBefore) throws Exception {
        String key = freshKey("late-waiter");
        String item = freshItem();
        // a pessimistic holder whose session died unnoticed: its handle still says valid
        LockHandle earlier = acquireElsewhere(LockRequest.of(key));
        if (fencedBefore) {
            decrement(Access.JDBC, item, earlier);
        }
        closeElsewhere(earlier);
        LockHandle stale = PausedHolderView.of(earlier);
        LockHandle later = acquireElsewhere(LockRequest.of(key));
        int before = stock.quantity(item);
        try (Connection newer = business.getConnection()) {
            newer.setAutoCommit(false);
            fence(newer, later);
            StockTable.write(newer, item, StockTable.read(newer, item) - 1);
            Future<Integer> late = threads.submit(() -> decrement(Access.JDBC, item, stale));

            ServerView.awaitFenceWait(database(), late);
            newer.commit();
            committedDecrements.incrementAndGet();
            newer.setAutoCommit(true);

            ExecutionException failed = assertThrows(ExecutionException.class, () -> late.get(60, TimeUnit.SECONDS));
            assertInstanceOf(LockLostException.class, failed.getCause());
        }
        assertEquals(before - 1, stock.quantity(item));
        assertNoLostUpdate(item);
        closeElsewhere(later);
    }

    @Test
    void pessimisticHoldersFenceTheirWritesAndAFormerHolderIsRefusedAfterALaterOneWrote() throws Exception {
        String key = freshKey("pessimistic");
        String item = freshItem();
        LockHandle first = acquireElsewhere(LockRequest.of(key).mode(LockMode.PESSIMISTIC));
        // one holder may fence as many transactions as it likes
        assertEquals(INITIAL_STOCK, decrement(Access.JDBC, item, first));
        assertEquals(INITIAL_STOCK - 1, decrement(Access.JPA, item, first));
        closeElsewhere(first);
        LockHandle second = acquireElsewhere(LockRequest.of(key).mode(LockMode.PESSIMISTIC));
        assertTrue(second.token() > first.token());
        assertEquals(INITIAL_STOCK - 2, decrement(Access.JDBC, item, second));

        for (Access access : Access.values()) {
            LockLostException refused = assertThrows(LockLostException.class,
                    () -> decrement(access, item, PausedHolderView.of(first)), access.name());
            assertTrue(refused.getMessage().contains("token " + second.token()), refused.getMessage());
        }
        assertEquals(INITIAL_STOCK - 3, stock.quantity(item));
        assertNoLostUpdate(item);
        closeElsewhere(second);
    }

    @Test
    void nullArgumentsAreRefusedWithAClearMessage() throws Exception {
        LockHandle handle = acquireElsewhere(LockRequest.of(freshKey("null")));
        try (Connection connection = business.getConnection()) {
            connection.setAutoCommit(false);
            assertMessage(IllegalArgumentException.class, "Connection", () -> LockFence.check((Connection) null, handle));
            assertMessage(IllegalArgumentException.class, "LockHandle", () -> LockFence.check(connection, null));
            connection.rollback();
            connection.setAutoCommit(true);
        }
        EntityManager entityManager = businessUnit.createEntityManager();
        try {
            assertMessage(IllegalArgumentException.class, "EntityManager", () -> LockFence.check((EntityManager) null, handle));
            assertMessage(IllegalArgumentException.class, "LockHandle", () -> LockFence.check(entityManager, null));
        } finally {
            entityManager.close();
        }
        closeElsewhere(handle);
    }

    @Test
    void fenceOutsideATransactionIsRefusedAndWritesNothing() throws Exception {
        LockHandle handle = acquireElsewhere(LockRequest.of(freshKey("no-transaction")));
        try (Connection autocommit = business.getConnection()) {
            assertTrue(autocommit.getAutoCommit());
            assertMessage(IllegalStateException.class, "autocommit", () -> LockFence.check(autocommit, handle));
        }
        EntityManager entityManager = businessUnit.createEntityManager();
        try {
            assertMessage(IllegalStateException.class, "active transaction", () -> LockFence.check(entityManager, handle));
        } finally {
            entityManager.close();
        }
        assertFalse(fenceRowExists(handle.key()), "a refused call wrote the fence");
        closeElsewhere(handle);
    }

    // ---- the application's transactions

    /**
     * One stock decrement in one transaction: fence (unless null), read, write, commit.
     *
     * @return the quantity it read
     */
    private int decrement(Access access, String item, LockHandle fenceWith) throws Exception {
        return switch (access) {
            case JDBC -> inJdbcTransaction(fenceWith, connection -> {
                int read = StockTable.read(connection, item);
                StockTable.write(connection, item, read - 1);
                return read;
            });
            case JPA -> inJpaTransaction(fenceWith, entityManager -> {
                Stock row = entityManager.find(Stock.class, item);
                int read = row.getQuantity();
                row.setQuantity(read - 1);
                return read;
            });
        };
    }

    /** A paused holder's decrement: computed from what it read before the pause, written now. */
    private void writeStale(Access access, String item, LockHandle fenceWith, int computedBeforePause) throws Exception {
        switch (access) {
            case JDBC -> inJdbcTransaction(fenceWith, connection -> {
                StockTable.write(connection, item, computedBeforePause);
                return null;
            });
            case JPA -> inJpaTransaction(fenceWith, entityManager -> {
                entityManager.find(Stock.class, item).setQuantity(computedBeforePause);
                return null;
            });
        }
    }

    private interface JdbcWork<T> {
        T on(Connection connection) throws SQLException;
    }

    private <T> T inJdbcTransaction(LockHandle fenceWith, JdbcWork<T> work) throws SQLException {
        try (Connection connection = business.getConnection()) {
            connection.setAutoCommit(false);
            try {
                if (fenceWith != null) {
                    fence(connection, fenceWith);
                }
                T result = work.on(connection);
                connection.commit();
                committedDecrements.incrementAndGet();
                return result;
            } catch (SQLException | RuntimeException | Error failure) {
                connection.rollback();
                throw failure;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    private <T> T inJpaTransaction(LockHandle fenceWith, java.util.function.Function<EntityManager, T> work) {
        EntityManager entityManager = businessUnit.createEntityManager();
        try {
            entityManager.getTransaction().begin();
            if (fenceWith != null) {
                LockFence.check(entityManager, fenceWith);
            }
            T result = work.apply(entityManager);
            entityManager.getTransaction().commit();
            committedDecrements.incrementAndGet();
            return result;
        } finally {
            if (entityManager.getTransaction().isActive()) {
                entityManager.getTransaction().rollback();
            }
            entityManager.close();
        }
    }

    private void assertNoLostUpdate(String item) throws SQLException {
        assertEquals(INITIAL_STOCK - committedDecrements.get(), stock.quantity(item),
                "committed decrements and the stock disagree: an update was lost");
    }

    // ---- locks

    private LockManager manager(LockRepository repository) {
        LockManager manager = LockManagerBuilder.on(repository).build();
        managers.add(manager);
        return manager;
    }

    private static LockRequest optimistic(String key) {
        return LockRequest.of(key).mode(LockMode.OPTIMISTIC);
    }

    /** Another JVM's view: a manager of its own takes the key once the paused holder's lease ran out. */
    private LockHandle takeOver(String key) throws Exception {
        LockManager other = manager(store.repository());
        return held(elsewhere(() -> other.acquire(optimistic(key).maxWait(LONG_WAIT))));
    }

    private LockHandle acquireElsewhere(LockRequest request) throws Exception {
        LockManager other = manager(store.repository());
        return held(elsewhere(() -> other.acquire(request.maxWait(LONG_WAIT))));
    }

    private LockHandle held(LockHandle handle) {
        handles.add(handle);
        return handle;
    }

    private void closeElsewhere(LockHandle handle) throws Exception {
        elsewhere(() -> {
            handle.close();
            return null;
        });
    }

    private <T> T elsewhere(Callable<T> work) throws Exception {
        return threads.submit(work).get(60, TimeUnit.SECONDS);
    }

    // ---- fixtures

    private static String freshKey(String name) {
        return "fence:" + name + ":" + UUID.randomUUID();
    }

    private String freshItem() throws SQLException {
        String item = "item-" + UUID.randomUUID();
        stock.add(item, INITIAL_STOCK);
        return item;
    }

    private boolean fenceRowExists(String key) throws SQLException {
        try (Connection connection = business.getConnection();
             PreparedStatement read = connection.prepareStatement("SELECT 1 FROM locked_fence WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                return row.next();
            }
        }
    }

    private static void assertMessage(Class<? extends Exception> type, String mentions,
                                      org.junit.jupiter.api.function.Executable call) {
        Exception thrown = assertThrows(type, call);
        assertTrue(thrown.getMessage().contains(mentions), "message should mention " + mentions + ": " + thrown.getMessage());
    }
}
