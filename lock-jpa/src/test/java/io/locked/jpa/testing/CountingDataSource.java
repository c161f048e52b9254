package io.locked.jpa.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plain connections to a test database that count the calls that may reach the server: statements
 * executed, commits and rollbacks, and autocommit switches (which Connector/J sends as a statement).
 * Hand it to a pool as its data source; the pool's own calls count too, as they cost the same.
 */
public final class CountingDataSource extends PlainDataSource {
    private static final Set<String> ENDS = Set.of("commit", "rollback", "setAutoCommit");
    private final TestDatabase database;
    private final AtomicLong statements = new AtomicLong();
    private final AtomicLong ends = new AtomicLong();

    public CountingDataSource(TestDatabase database) {
        this.database = database;
    }

    /** @return statements executed so far */
    public long statements() {
        return statements.get();
    }

    /** @return commits, rollbacks and autocommit switches so far */
    public long transactionCalls() {
        return ends.get();
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = database.connect();
        return proxy(Connection.class, connection, (method, args) -> {
            if (ENDS.contains(method.getName())) {
                ends.incrementAndGet();
            }
            Object result = method.invoke(connection, args);
            if (result instanceof CallableStatement callable) {
                return proxy(CallableStatement.class, callable, counting(callable));
            }
            if (result instanceof PreparedStatement prepared) {
                return proxy(PreparedStatement.class, prepared, counting(prepared));
            }
            if (result instanceof Statement statement) {
                return proxy(Statement.class, statement, counting(statement));
            }
            return result;
        });
    }

    private Call counting(Statement statement) {
        return (method, args) -> {
            if (method.getName().startsWith("execute")) {
                statements.incrementAndGet();
            }
            return method.invoke(statement, args);
        };
    }

    /** A call on the wrapped object, which may throw what the method declares. */
    @FunctionalInterface
    private interface Call {
        Object on(java.lang.reflect.Method method, Object[] args) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T target, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return call.on(method, args);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
