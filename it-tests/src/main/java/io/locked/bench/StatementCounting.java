package io.locked.bench;

import io.locked.jpa.testing.PlainDataSource;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connections to a benchmark database that count the statements executed on them, for a pool to
 * draw from: what reaches the server, whichever layer sent it.
 */
final class StatementCounting extends PlainDataSource {
    private final BenchDatabase database;
    private final AtomicLong statements = new AtomicLong();

    StatementCounting(BenchDatabase database) {
        this.database = database;
    }

    /** @return statements executed so far */
    long statements() {
        return statements.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = DriverManager.getConnection(database.url(), database.user(), database.password());
        return proxy(Connection.class, connection, true);
    }

    private <T> T proxy(Class<T> type, Object target, boolean connection) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (!connection && method.getName().startsWith("execute")) {
                statements.incrementAndGet();
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
            if (connection && result instanceof PreparedStatement prepared) {
                return proxy(PreparedStatement.class, prepared, false);
            }
            if (connection && result instanceof Statement statement) {
                return proxy(Statement.class, statement, false);
            }
            return result;
        };
        return type.cast(Proxy.newProxyInstance(StatementCounting.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
