package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.PlainDataSource;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A hand-over of a live lease to the next waiting thread is applied in the database, but its reply is
 * lost (the connection broke after the statement, or after the commit). Neither side may believe the
 * lock was lost: the giver's close does not throw, and the successor gets the lease now, not one
 * lease later.
 */
class LostHandOverReplyTest {
    private static final Duration LEASE = Duration.ofSeconds(60);

    static Stream<Arguments> databasesAndPaths() {
        return Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL)
                .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                        .map(path -> Arguments.of(database, path, true)));
    }

    /** The hand-over failed before it reached the database: the row is still the giver's to release. */
    static Stream<Arguments> failedBeforeItWasSent() {
        return Stream.of(LockStatements.NATIVE, LockStatements.JPA).map(path -> Arguments.of(TestDatabase.H2, path, false));
    }

    @ParameterizedTest(name = "{0}, {1} path, applied: {2}")
    @MethodSource({"databasesAndPaths", "failedBeforeItWasSent"})
    void aHandOverWhoseReplyWasLostStillHandsTheLeaseOver(TestDatabase database, LockStatements path, boolean applied)
            throws Exception {
        database.requireReachable();
        String key = "handover-reply:" + UUID.randomUUID();
        AtomicBoolean armed = new AtomicBoolean();
        try (HikariDataSource hikari = database.pool(4)) {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.nonJtaDataSource", new ReplyLosingDataSource(hikari, armed, applied),
                    "hibernate.dialect", database.dialect()));
            JpaLockRepository repository = JpaLockRepository.builder(factory).statements(path).build();
            repository.createTableIfMissing();
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                LockRequest request = LockRequest.of(key).mode(LockMode.OPTIMISTIC).lease(LEASE)
                        .maxWait(Duration.ofSeconds(15));
                LockHandle giver = locks.acquire(request);
                AtomicReference<Thread> waiter = new AtomicReference<>();
                CompletableFuture<LockHandle> successor = CompletableFuture.supplyAsync(() -> {
                    waiter.set(Thread.currentThread());
                    return locks.acquire(request);
                });
                awaitWaiting(waiter);

                armed.set(true);
                assertDoesNotThrow(giver::close, "the giver was told it lost a lease it handed over");
                LockHandle next = successor.get(30, TimeUnit.SECONDS);
                assertTrue(next.isValid());
                assertTrue(next.token() > giver.token(), "the successor's token is not higher");
                CompletableFuture.runAsync(next::close).get(30, TimeUnit.SECONDS);
                assertTrue(!armed.get(), "no hand-over statement was sent");
            } finally {
                factory.close();
            }
        }
    }

    /** Waits until the waiter thread parks in the manager's queue for the key. */
    private static void awaitWaiting(AtomicReference<Thread> waiter) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            Thread thread = waiter.get();
            if (thread != null && (thread.getState() == Thread.State.WAITING
                    || thread.getState() == Thread.State.TIMED_WAITING)) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the second thread never waited for the key");
    }

    /**
     * Connections that, once armed, lose the reply of the first statement that writes a lease's owner:
     * the statement (or, in a transaction, its commit) is applied, then the call fails as a broken
     * connection would.
     */
    private static final class ReplyLosingDataSource extends PlainDataSource {
        private final HikariDataSource pool;
        private final AtomicBoolean armed;
        private final boolean applied;

        /** @param applied whether the statement reaches the database before its call fails */
        ReplyLosingDataSource(HikariDataSource pool, AtomicBoolean armed, boolean applied) {
            this.pool = pool;
            this.armed = armed;
            this.applied = applied;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = pool.getConnection();
            AtomicBoolean commitLosesReply = new AtomicBoolean();
            return proxy(Connection.class, (self, method, args) -> {
                Object result = invoke(connection, method, args);
                if (method.getName().equals("commit") && commitLosesReply.getAndSet(false)) {
                    throw lostReply();
                }
                if (result instanceof Statement statement && args != null && args.length > 0
                        && args[0] instanceof String sql && writesOwner(sql)) {
                    return statementLosingReply(connection, statement, commitLosesReply);
                }
                return result;
            });
        }

        private Statement statementLosingReply(Connection connection, Statement statement, AtomicBoolean commitLosesReply) {
            Class<?> type = statement instanceof java.sql.PreparedStatement ? java.sql.PreparedStatement.class : Statement.class;
            return (Statement) proxy(type, (self, method, args) -> {
                if (!applied && method.getName().startsWith("execute") && armed.compareAndSet(true, false)) {
                    throw lostReply();
                }
                Object result = invoke(statement, method, args);
                if (method.getName().startsWith("execute") && armed.compareAndSet(true, false)) {
                    if (connection.getAutoCommit()) {
                        throw lostReply();
                    }
                    commitLosesReply.set(true);
                }
                return result;
            });
        }

        private static boolean writesOwner(String sql) {
            String text = sql.toLowerCase(Locale.ROOT).replaceAll("\\s+", "");
            // PostgreSQL's hand-over carries the new owner through the step that locks the row first
            return text.contains("setowner=?") || text.contains(",owner=?") || text.contains("setowner=given.new_owner");
        }

        private static SQLException lostReply() {
            return new SQLTransientConnectionException("Communications link failure: the reply was lost", "08S01");
        }

        @SuppressWarnings("unchecked")
        private static <T> T proxy(Class<T> type, InvocationHandler handler) {
            return (T) Proxy.newProxyInstance(LostHandOverReplyTest.class.getClassLoader(), new Class<?>[] {type}, handler);
        }

        private static Object invoke(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
            try {
                return method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }
}
