package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Plain connections to a test database (MariaDB or MySQL, whose transactions Locked ends by a
 * {@code COMMIT} statement) on which a test cuts off the reply of one commit the server made, the way
 * a {@code KILL} that reaches the session while its commit is under way does: the commit runs, then
 * the test's code runs (it ends the session), and the commit's caller gets the error the connection
 * gives next, not the commit's answer. Hand it to a pool as its data source.
 */
public final class CommitReplyCut extends PlainDataSource {
    private final TestDatabase database;
    private final AtomicReference<StatementHook.Action> armed = new AtomicReference<>();
    private volatile boolean interrupted;

    public CommitReplyCut(TestDatabase database) {
        this.database = database;
    }

    /** Cuts off the reply of the next commit: the action runs after that commit ran, and ends its session. */
    public void nextCommit(StatementHook.Action endingTheSession) {
        interrupted = false;
        armed.set(endingTheSession);
    }

    /**
     * As {@link #nextCommit}, but the commit's caller gets what MySQL answers a statement its session's
     * {@code KILL} interrupted while it ran: error 1317, SQL state 70100, whether or not the commit landed.
     */
    public void nextCommitInterrupted(StatementHook.Action endingTheSession) {
        interrupted = true;
        armed.set(endingTheSession);
    }

    /** @return whether the armed commit came (or none was armed) */
    public boolean cut() {
        return armed.get() == null;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = database.connect();
        return JdbcProxies.proxy(Connection.class, (method, args) -> {
            Object result = method.invoke(connection, args);
            return method.getName().equals("createStatement") ? statement(connection, (Statement) result) : result;
        });
    }

    private Statement statement(Connection connection, Statement statement) {
        return JdbcProxies.proxy(Statement.class, (method, args) -> {
            Object result = method.invoke(statement, args);
            if (method.getName().equals("execute") && args != null && "COMMIT".equals(args[0])) {
                StatementHook.Action now = armed.get();
                if (now != null && armed.compareAndSet(now, null)) {
                    now.run();
                    throw interrupted ? new SQLException("Query execution was interrupted", "70100", 1317)
                            : connectionsAnswer(connection);
                }
            }
            return result;
        });
    }

    /** What the connection answers once its session was ended: the error its caller would have had. */
    private static SQLException connectionsAnswer(Connection connection) {
        try (Statement probe = connection.createStatement()) {
            probe.execute("SELECT 1");
        } catch (SQLException ended) {
            return ended;
        }
        throw new AssertionError("the session whose commit reply was to be cut off was not ended");
    }
}
