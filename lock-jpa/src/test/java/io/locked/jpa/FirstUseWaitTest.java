package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.PlainDataSource;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A key's first pessimistic use on PostgreSQL runs its lock statement twice (the row it created is
 * committed so that others see the hold, then locked again). Each statement may wait only for what
 * is left of the caller's wait: passing the whole wait to each let one acquisition wait up to two or
 * three times {@code maxWait}. A commit slowed down on purpose shows the second statement's bound.
 */
class FirstUseWaitTest {
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static final long SLOW_COMMIT_MILLIS = 600;

    /** A lock statement's wait as sent, and when. */
    private record SentWait(long sentAtNanos, long waitMillis) {
    }

    @Test
    void theStatementsOfAKeysFirstUseShareOneWait() throws Exception {
        TestDatabase database = TestDatabase.POSTGRESQL;
        database.requireReachable();
        List<SentWait> sent = new CopyOnWriteArrayList<>();
        AtomicBoolean slowCommits = new AtomicBoolean();
        try (HikariDataSource hikari = database.pool(3)) {
            EntityManagerFactory factory = Persistence.createEntityManagerFactory(TestDatabase.UNIT, Map.of(
                    "jakarta.persistence.nonJtaDataSource", new RecordingDataSource(hikari, sent, slowCommits),
                    "hibernate.dialect", database.dialect()));
            JpaLockRepository repository = JpaLockRepository.builder(factory).statements(LockStatements.NATIVE).build();
            repository.createTableIfMissing();
            try (LockManager locks = LockManagerBuilder.on(repository).build()) {
                sent.clear();
                slowCommits.set(true);
                long started = System.nanoTime();
                try (LockHandle held = locks.acquire(LockRequest.of("first-use:" + UUID.randomUUID()).maxWait(WAIT))) {
                    assertTrue(held.isValid());
                }
                slowCommits.set(false);
                assertTrue(sent.size() >= 2, "the first use sent one lock statement only: " + sent);
                for (SentWait statement : sent) {
                    long endsAfterMillis = TimeUnit.NANOSECONDS.toMillis(statement.sentAtNanos() - started) + statement.waitMillis();
                    assertFalse(endsAfterMillis > WAIT.toMillis() + 100, "a statement sent "
                            + TimeUnit.NANOSECONDS.toMillis(statement.sentAtNanos() - started) + " ms into the acquisition"
                            + " could wait " + statement.waitMillis() + " ms, past the caller's wait of " + WAIT);
                }
            } finally {
                factory.close();
            }
        }
    }

    /** Records the lock_timeout of each lock statement, and slows commits down while asked to. */
    private static final class RecordingDataSource extends PlainDataSource {
        private final HikariDataSource pool;
        private final List<SentWait> sent;
        private final AtomicBoolean slowCommits;

        RecordingDataSource(HikariDataSource pool, List<SentWait> sent, AtomicBoolean slowCommits) {
            this.pool = pool;
            this.sent = sent;
            this.slowCommits = slowCommits;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = pool.getConnection();
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (self, method, args) -> {
                        if (method.getName().equals("commit") && slowCommits.get()) {
                            Thread.sleep(SLOW_COMMIT_MILLIS);
                        }
                        Object result = invoke(connection, method, args);
                        if (result instanceof PreparedStatement statement && args[0] instanceof String sql
                                && sql.contains("lock_timeout")) {
                            return recording(statement);
                        }
                        return result;
                    });
        }

        private PreparedStatement recording(PreparedStatement statement) {
            long[] wait = {-1};
            return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {PreparedStatement.class}, (self, method, args) -> {
                        if (method.getName().equals("setString") && args[1] instanceof String value
                                && value.matches("\\d+ms")) {
                            wait[0] = Long.parseLong(value.substring(0, value.length() - 2));
                        }
                        if (method.getName().startsWith("execute") && wait[0] >= 0) {
                            sent.add(new SentWait(System.nanoTime(), wait[0]));
                        }
                        return invoke(statement, method, args);
                    });
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
