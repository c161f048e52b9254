package io.locked.jpa.testing;

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
        return JdbcProxies.proxy(Connection.class, (method, args) -> {
            if (ENDS.contains(method.getName())) {
                ends.incrementAndGet();
            }
            Object result = method.invoke(connection, args);
            if (result instanceof CallableStatement callable) {
                return JdbcProxies.proxy(CallableStatement.class, counting(callable));
            }
            if (result instanceof PreparedStatement prepared) {
                return JdbcProxies.proxy(PreparedStatement.class, counting(prepared));
            }
            if (result instanceof Statement statement) {
                return JdbcProxies.proxy(Statement.class, counting(statement));
            }
            return result;
        });
    }

    private JdbcProxies.Call counting(Statement statement) {
        return (method, args) -> {
            if (method.getName().startsWith("execute")) {
                statements.incrementAndGet();
            }
            return method.invoke(statement, args);
        };
    }
}
