package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.agroal.api.AgroalDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.JtaUnits;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import jakarta.transaction.Status;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Promise 8 on a JTA unit: a lock taken or released inside the caller's JTA transaction runs in a
 * transaction of its own. The caller's transaction stays the thread's, active and unmarked; its work
 * commits or rolls back by its own decision alone, and its rollback does not undo the lock.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class JtaCallerTransactionTest {
    private static final TestDatabase DATABASE = TestDatabase.MARIADB;
    private static final Duration WAIT = Duration.ofSeconds(5);
    private final TransactionManager transactions = JtaUnits.transactionManager();
    private final Map<LockStatements, Store> stores = new EnumMap<>(LockStatements.class);

    @BeforeAll
    void openStores() throws SQLException {
        for (LockStatements path : new LockStatements[] {LockStatements.NATIVE, LockStatements.JPA}) {
            stores.put(path, JtaUnits.open(DATABASE, 6, settings -> settings.statements(path)));
        }
        try (Connection connection = DATABASE.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS jta_caller_work (id VARCHAR(64) PRIMARY KEY)");
        }
    }

    @AfterEach
    void noTransactionLeftOnTheThread() throws Exception {
        if (transactions.getStatus() != Status.STATUS_NO_TRANSACTION) {
            transactions.rollback();
        }
    }

    @AfterAll
    void closeStores() throws Exception {
        for (Store store : stores.values()) {
            assertEquals(0, store.borrowedConnections(), "connections still borrowed from the pool");
            store.close();
        }
        assertEquals(0, stores.get(LockStatements.NATIVE).openTransactionsOnServer(), "transactions left open on the server");
    }

    static Stream<Arguments> pathsAndModes() {
        return Stream.of(LockStatements.NATIVE, LockStatements.JPA).flatMap(path ->
                Stream.of(LockMode.values()).map(mode -> Arguments.of(path, mode)));
    }

    @ParameterizedTest(name = "{0} path, {1}")
    @MethodSource("pathsAndModes")
    void aLockTakenInsideTheCallersTransactionSurvivesItsRollback(LockStatements path, LockMode mode) throws Exception {
        Store store = stores.get(path);
        String key = "jta:inside:" + UUID.randomUUID();
        String work = UUID.randomUUID().toString();
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build();
             LockManager otherJvm = LockManagerBuilder.on(store.repository()).build()) {
            transactions.begin();
            Transaction caller = transactions.getTransaction();
            writeInCallersTransaction(store, work);

            LockHandle handle = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT));

            assertSame(caller, transactions.getTransaction(), "the caller's transaction is the thread's again");
            assertEquals(Status.STATUS_ACTIVE, transactions.getStatus(), "the caller's transaction is active and unmarked");
            assertFalse(triedElsewhere(otherJvm, key, mode), "the lock is held, seen from a thread outside the caller's transaction");

            transactions.rollback(); // the caller's decision

            assertFalse(triedElsewhere(otherJvm, key, mode), "the caller's rollback did not undo the lock");
            assertTrue(handle.isValid());
            long heldToken = handle.token();
            handle.close();
            assertFalse(workCommitted(work), "the caller's work rolled back with it");
            CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
                try (LockHandle second = otherJvm.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT))) {
                    return second.token();
                }
            });
            assertTrue(next.get(30, TimeUnit.SECONDS) > heldToken, "the next holder's token is higher");
        }
    }

    @ParameterizedTest(name = "{0} path, {1}")
    @MethodSource("pathsAndModes")
    void theTimeoutTheApplicationSetForItsThreadSurvivesTheLocksOwnTransactions(LockStatements path, LockMode mode)
            throws Exception {
        Store store = stores.get(path);
        String key = "jta:timeout:" + UUID.randomUUID();
        var narayana = (com.arjuna.ats.internal.jta.transaction.arjunacore.BaseTransaction) transactions;
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            transactions.setTransactionTimeout(7);
            try {
                locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT)).close();
                assertEquals(7, narayana.getTimeout(), "the application's timeout for its next transaction was reset");
            } finally {
                transactions.setTransactionTimeout(0);
            }
        }
    }

    @ParameterizedTest(name = "{0} path, {1}")
    @MethodSource("pathsAndModes")
    void aReleaseInsideTheCallersTransactionLeavesItsWorkToItsCommit(LockStatements path, LockMode mode) throws Exception {
        Store store = stores.get(path);
        String key = "jta:release:" + UUID.randomUUID();
        String work = UUID.randomUUID().toString();
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build();
             LockManager otherJvm = LockManagerBuilder.on(store.repository()).build()) {
            LockHandle handle = locks.acquire(LockRequest.of(key).mode(mode).maxWait(WAIT));
            transactions.begin();
            Transaction caller = transactions.getTransaction();
            writeInCallersTransaction(store, work);

            handle.close();

            assertSame(caller, transactions.getTransaction());
            assertEquals(Status.STATUS_ACTIVE, transactions.getStatus(), "the release neither ended nor marked the caller's transaction");
            assertTrue(triedElsewhere(otherJvm, key, mode), "released at once, before the caller's commit");
            assertFalse(workCommitted(work), "the caller's work waits for the caller's commit");
            transactions.commit();
            assertTrue(workCommitted(work));
        }
    }

    @ParameterizedTest(name = "{0} path")
    @MethodSource("paths")
    void aPessimisticHoldEndsCleanlyUnderACallerMarkedRollbackOnly(LockStatements path) throws Exception {
        Store store = stores.get(path);
        String key = "jta:marked:" + UUID.randomUUID();
        try (LockManager locks = LockManagerBuilder.on(store.repository()).build();
             LockManager otherJvm = LockManagerBuilder.on(store.repository()).build()) {
            transactions.begin();
            LockHandle handle = locks.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC).maxWait(WAIT));
            transactions.setRollbackOnly(); // the method failed

            handle.close(); // no LockLostException: the hold's own transaction committed

            assertEquals(Status.STATUS_MARKED_ROLLBACK, transactions.getStatus(), "the caller's mark is its own");
            transactions.rollback();
            assertTrue(triedElsewhere(otherJvm, key, LockMode.PESSIMISTIC));
        }
    }

    static Stream<LockStatements> paths() {
        return Stream.of(LockStatements.NATIVE, LockStatements.JPA);
    }

    @Test
    void aJtaUnitWithoutAFindableTransactionManagerIsRefusedNamingHowToGiveOne() throws Exception {
        AgroalDataSource pool = JtaUnits.enlistingPool(DATABASE, 2);
        // Hibernate finds Narayana on the class path by itself: say that there is no platform, as on a
        // server Hibernate does not know
        EntityManagerFactory factory = JtaUnits.jtaUnit(DATABASE, pool,
                "org.hibernate.engine.transaction.jta.platform.internal.NoJtaPlatform");
        try {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> JpaLockRepository.builder(factory).build());
            assertTrue(refused.getMessage().contains("container-managed (JTA)")
                    && refused.getMessage().contains(".transactionManager(...)"), refused.getMessage());

            // handed one, the same unit locks outside the caller's transaction
            JpaLockRepository repository = JpaLockRepository.builder(factory).statements(LockStatements.NATIVE)
                    .transactionManager(transactions).build();
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                transactions.begin();
                Transaction caller = transactions.getTransaction();
                locks.acquire(LockRequest.of("jta:handed:" + UUID.randomUUID()).maxWait(WAIT)).close();
                assertSame(caller, transactions.getTransaction());
                assertEquals(Status.STATUS_ACTIVE, transactions.getStatus());
                transactions.rollback();
            }
        } finally {
            factory.close();
            pool.close();
        }
    }

    @Test
    void aUnitThatDoesNotMapLockRowIsRefusedNamingTheEntity() {
        EntityManagerFactory factory = Persistence.createEntityManagerFactory("locked-test-without-lock-row", Map.of(
                "jakarta.persistence.jdbc.url", TestDatabase.H2.url(), "jakarta.persistence.jdbc.user", TestDatabase.H2.user(),
                "jakarta.persistence.jdbc.password", TestDatabase.H2.password()));
        try {
            IllegalStateException refused = assertThrows(IllegalStateException.class,
                    () -> JpaLockRepository.builder(factory).build());
            assertTrue(refused.getMessage().contains("does not map io.locked.jpa.LockRow")
                    && refused.getMessage().contains("<class>io.locked.jpa.LockRow</class>"), refused.getMessage());
        } finally {
            factory.close();
        }
    }

    /** A write of the caller's: an enlisted connection of the unit's pool, inside the caller's transaction. */
    private static void writeInCallersTransaction(Store store, String id) throws SQLException {
        try (Connection connection = store.pool().dataSource().getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO jta_caller_work (id) VALUES (?)")) {
            insert.setString(1, id);
            insert.executeUpdate();
        }
    }

    private static boolean workCommitted(String id) throws SQLException {
        try (Connection connection = DATABASE.connect();
             PreparedStatement select = connection.prepareStatement("SELECT 1 FROM jta_caller_work WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet found = select.executeQuery()) {
                return found.next();
            }
        }
    }

    /** Tries the key once from another thread, which has no transaction, through another manager. */
    private static boolean triedElsewhere(LockManager otherJvm, String key, LockMode mode) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            Optional<LockHandle> taken = otherJvm.tryAcquire(LockRequest.of(key).mode(mode).maxWait(Duration.ZERO));
            taken.ifPresent(LockHandle::close);
            return taken.isPresent();
        }).get(30, TimeUnit.SECONDS);
    }
}
