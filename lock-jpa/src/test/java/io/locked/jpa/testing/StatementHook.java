package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * Plain connections to a test database that run a test's code once, right before the first
 * statement whose text a trigger matches (when it is prepared, or executed as text): the test
 * decides what happens between a library's earlier statements and that one. Hand it to a pool as
 * its data source.
 */
public final class StatementHook extends PlainDataSource {
    private final TestDatabase database;
    private final AtomicReference<Armed> armed = new AtomicReference<>();

    /** A trigger and what to run when it matches, once or every time. */
    private record Armed(Predicate<String> trigger, Action action, boolean everyTime) {
    }

    /** Code of the test, run on the thread about to send the statement. */
    @FunctionalInterface
    public interface Action {
        void run() throws Exception;
    }

    public StatementHook(TestDatabase database) {
        this.database = database;
    }

    /** Runs the action once, before the next statement whose SQL the trigger matches. */
    public void before(Predicate<String> trigger, Action action) {
        armed.set(new Armed(trigger, action, false));
    }

    /** Runs the action before every statement whose SQL the trigger matches, until {@link #disarm()}. */
    public void beforeEvery(Predicate<String> trigger, Action action) {
        armed.set(new Armed(trigger, action, true));
    }

    /** Runs nothing more. */
    public void disarm() {
        armed.set(null);
    }

    /** @return whether the armed action has run (or none was armed) */
    public boolean ran() {
        return armed.get() == null;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Connection connection = database.connect();
        return JdbcProxies.proxy(Connection.class, (method, args) -> {
            if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                fire(sql);
            }
            Object result = method.invoke(connection, args);
            return method.getName().equals("createStatement") ? statement((Statement) result) : result;
        });
    }

    private Statement statement(Statement statement) {
        return JdbcProxies.proxy(Statement.class, (method, args) -> {
            if (method.getName().startsWith("execute") && args != null && args[0] instanceof String sql) {
                fire(sql);
            }
            return method.invoke(statement, args);
        });
    }

    private void fire(String sql) throws Exception {
        Armed now = armed.get();
        if (now != null && now.trigger.test(sql) && (now.everyTime || armed.compareAndSet(now, null))) {
            now.action.run();
        }
    }
}
