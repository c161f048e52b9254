package io.locked.jpa.internal.nativepath;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link InsertIds} gives what {@code getGeneratedKeys} gives (the id a statement drew with
 * {@code LAST_INSERT_ID(expr)}; 0 where it drew none, though the session drew one before), reads it from
 * Connector/J's statement without asking for the keys where the statement unwraps to it, a pool's
 * included, and asks for the keys where a wrapper will not unwrap.
 */
class InsertIdsTest {

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "MYSQL8"})
    void theDriversStatementIsReadWithoutItsKeys(TestDatabase database) throws SQLException {
        database.requireReachable();
        try (Connection direct = database.connect()) {
            assertIds(direct, true);
        }
        try (HikariDataSource pool = database.pool(1); Connection pooled = pool.getConnection()) {
            assertIds(pooled, true);
        }
        // the driver's server-side prepared statement is another subclass of its statement
        try (HikariDataSource pool = database.pool(1, Map.of("useServerPrepStmts", "true"));
             Connection pooled = pool.getConnection()) {
            assertIds(pooled, true);
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDatabase.class, names = {"MARIADB", "MYSQL8"})
    void aWrapperThatWillNotUnwrapIsAskedForItsKeys(TestDatabase database) throws SQLException {
        database.requireReachable();
        try (Connection direct = database.connect()) {
            assertIds(direct, false);
        }
    }

    /** Draws ids on a table of its own, reading each through a statement that counts the asks for its keys. */
    private static void assertIds(Connection connection, boolean unwraps) throws SQLException {
        String table = "insert_ids_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Statement setUp = connection.createStatement()) {
            setUp.execute("CREATE TABLE " + table + " (k VARCHAR(10) PRIMARY KEY, t BIGINT NOT NULL)");
            setUp.execute("INSERT INTO " + table + " VALUES ('a', 41)");
        }
        try {
            AtomicInteger keysAsked = new AtomicInteger();
            long clockSized = 1_764_790_000_000_000L;
            assertEquals(42, idOf(connection, "UPDATE " + table + " SET t = LAST_INSERT_ID(t + 1) WHERE k = 'a'",
                    unwraps, keysAsked));
            assertEquals(clockSized, idOf(connection, "UPDATE " + table + " SET t = LAST_INSERT_ID(" + clockSized
                    + ") WHERE k = 'a'", unwraps, keysAsked));
            assertEquals(0, idOf(connection, "UPDATE " + table + " SET t = IF(t < 0, LAST_INSERT_ID(t + 1), t)"
                    + " WHERE k = 'a'", unwraps, keysAsked), "a row found, no id drawn: the session's last id is not this statement's");
            assertEquals(0, idOf(connection, "UPDATE " + table + " SET t = LAST_INSERT_ID(t + 1) WHERE k = 'none'",
                    unwraps, keysAsked), "no row");
            assertEquals(unwraps ? 0 : 8, keysAsked.get(), "asks for the keys");
        } finally {
            try (Statement tearDown = connection.createStatement()) {
                tearDown.execute("DROP TABLE " + table);
            }
        }
    }

    /** @return the id read from a statement and from a prepared statement of the same update: the same, or the test fails */
    private static long idOf(Connection connection, String update, boolean unwraps, AtomicInteger keysAsked)
            throws SQLException {
        long sent;
        try (Statement statement = counting(connection.createStatement(), Statement.class, unwraps, keysAsked)) {
            statement.executeUpdate(update, Statement.RETURN_GENERATED_KEYS);
            sent = InsertIds.of(statement);
        }
        // the same update again draws the next id where it draws one: t + 1 moved on, a constant stays
        long prepared;
        try (PreparedStatement statement = counting(connection.prepareStatement(update, Statement.RETURN_GENERATED_KEYS),
                PreparedStatement.class, unwraps, keysAsked)) {
            statement.executeUpdate();
            prepared = InsertIds.of(statement);
        }
        boolean drawsFromTheRow = update.contains("LAST_INSERT_ID(t + 1)") && sent != 0;
        assertEquals(drawsFromTheRow ? sent + 1 : sent, prepared, "the prepared statement's id: " + update);
        return sent;
    }

    /** A wrapper, as an application server's pool has, that counts getGeneratedKeys and may refuse to unwrap */
    private static <S extends Statement> S counting(S statement, Class<S> type, boolean unwraps, AtomicInteger keysAsked) {
        InvocationHandler handler = (proxy, method, arguments) -> {
            if (method.getName().equals("getGeneratedKeys")) {
                keysAsked.incrementAndGet();
            }
            if (method.getName().equals("unwrap") && !unwraps) {
                throw new SQLException("this wrapper does not unwrap");
            }
            try {
                return method.invoke(statement, arguments);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(InsertIdsTest.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
