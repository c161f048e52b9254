package io.locked.jpa.testing;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.sql.DataSource;

/**
 * A pool that resets nothing, as many pools do (an application server's, Agroal, a driver's own
 * DataSource): a connection given back goes to the free list exactly as it is, and the next borrower
 * gets it so. HikariCP puts back what was changed through its proxy, which would hide a library that
 * leaves its changes behind; this pool shows them. It keeps each physical connection's state as it
 * was when the connection was made (JDBC's view and the session settings a lock statement may touch)
 * and compares each connection with that state as it comes back, and again at the end ({@link #dirt()}).
 *
 * <p>Its connections are made up front; one found closed when given back (its session ended, or the
 * library aborted it) is dropped, and a new one is made on the next borrow, as real pools do. A
 * borrow that finds none free fails at once rather than waits: the lock's calls then fail as
 * "no connection", and never leave a borrow pending after the test.
 */
public final class NonResettingPool extends PlainDataSource implements TestPool {
    private static final Set<String> STATEMENT_MAKERS = Set.of("prepareStatement", "prepareCall", "createStatement");

    private final TestDatabase database;
    private final int size;
    private final Deque<Pooled> free = new ArrayDeque<>();
    private final List<Pooled> borrowed = new ArrayList<>();
    private final List<Pooled> made = new ArrayList<>();
    private final List<Pooled> dropped = new ArrayList<>();
    private final AtomicReference<Predicate<String>> refusal = new AtomicReference<>();
    private volatile boolean refused;
    private final Map<String, String> dirtOnReturn = new LinkedHashMap<>();
    private final Object monitorLock = new Object();
    /** The session that looks at the pooled sessions from outside, made at first use; guarded by monitorLock. */
    private Connection monitor;

    /** A physical connection, its server session and its state when it was made. */
    private record Pooled(Connection physical, long session, Map<String, String> initial) {
    }

    /**
     * @param database where the connections go
     * @param size     how many physical connections it has at most (all made now)
     */
    public NonResettingPool(TestDatabase database, int size) throws SQLException {
        this.database = database;
        this.size = size;
        for (int i = 0; i < size; i++) {
            free.addLast(make());
        }
    }

    private Pooled make() throws SQLException {
        Connection physical = database.connect();
        Pooled pooled = new Pooled(physical, session(physical), state(physical));
        synchronized (this) {
            made.add(pooled);
        }
        return pooled;
    }

    @Override
    public Connection getConnection() throws SQLException {
        Pooled pooled;
        synchronized (this) {
            pooled = free.pollFirst();
            if (pooled == null && borrowed.size() + free.size() >= size) {
                throw new SQLException("The non-resetting pool's " + size + " connections are all borrowed");
            }
            if (pooled != null) {
                borrowed.add(pooled);
            }
        }
        if (pooled == null) {
            pooled = make();
            synchronized (this) {
                borrowed.add(pooled);
            }
        }
        return handle(pooled);
    }

    /** The borrower's view: close() gives the physical connection back as it is, and only once. */
    private Connection handle(Pooled pooled) {
        Connection physical = pooled.physical();
        AtomicBoolean closed = new AtomicBoolean();
        return JdbcProxies.proxy(Connection.class, (method, args) -> {
            switch (method.getName()) {
                case "close":
                    if (closed.compareAndSet(false, true)) {
                        giveBack(pooled);
                    }
                    return null;
                case "isClosed":
                    return closed.get() || physical.isClosed();
                case "unwrap":
                    Class<?> type = (Class<?>) args[0];
                    return type.isInstance(physical) ? physical : physical.unwrap(type);
                case "isWrapperFor":
                    Class<?> wrapped = (Class<?>) args[0];
                    return wrapped.isInstance(physical) || physical.isWrapperFor(wrapped);
                default:
                    break;
            }
            if (closed.get()) {
                throw new SQLException("Connection handle already closed: " + method.getName());
            }
            return refusing(method, args, physical);
        });
    }

    private Object refusing(Method method, Object[] args, Connection physical) throws Exception {
        if (STATEMENT_MAKERS.contains(method.getName()) && args != null && args.length > 0
                && args[0] instanceof String sql) {
            args[0] = refused(sql);
        }
        Object result = method.invoke(physical, args);
        if (method.getName().equals("createStatement") && refusal.get() != null) {
            Statement statement = (Statement) result;
            return JdbcProxies.proxy(Statement.class, (call, values) -> {
                if (call.getName().startsWith("execute") && values != null && values.length > 0
                        && values[0] instanceof String sql) {
                    values[0] = refused(sql);
                }
                return call.invoke(statement, values);
            });
        }
        return result;
    }

    /**
     * The next statement whose text the trigger matches is sent naming a table that does not
     * exist, so that the database refuses it, wherever it comes in its transaction.
     */
    public void refuseNext(Predicate<String> trigger) {
        refused = false;
        refusal.set(trigger);
    }

    /** @return whether the statement armed by {@link #refuseNext} was sent (and refused) */
    public boolean refusedOne() {
        return refused;
    }

    private String refused(String sql) {
        Predicate<String> trigger = refusal.get();
        if (trigger != null && trigger.test(sql) && refusal.compareAndSet(trigger, null)) {
            refused = true;
            return sql.replace("locked_lock", "locked_no_such_table");
        }
        return sql;
    }

    /**
     * Compares the connection with its state at creation as it comes back, before anyone else can
     * borrow it: a change left behind is caught even where a later failure of the workload ends
     * that session. A connection found closed, or whose session is gone, is dropped: it brings no
     * state to its next borrower.
     */
    private void giveBack(Pooled pooled) {
        List<String> found;
        boolean usable;
        try {
            usable = !pooled.physical().isClosed();
            found = usable ? differences(pooled) : List.of();
        } catch (SQLException gone) {
            usable = false;
            found = List.of();
        }
        synchronized (this) {
            borrowed.remove(pooled);
            for (String difference : found) {
                // once per difference: a connection left dirty shows it again at each later return
                dirtOnReturn.putIfAbsent(difference, difference + " (given back by " + giver() + ")");
            }
            if (usable) {
                free.addLast(pooled);
            } else {
                close(pooled.physical());
                dropped.add(pooled);
            }
        }
    }

    /** @return the first frame of the code that gave the connection back, past this pool and the proxies */
    private static String giver() {
        return StackWalker.getInstance().walk(frames -> frames
                .filter(frame -> !frame.getClassName().startsWith(NonResettingPool.class.getName())
                        && !frame.getClassName().startsWith(JdbcProxies.class.getName())
                        && !frame.getClassName().startsWith("jdk.") && !frame.getClassName().startsWith("java.")
                        && !frame.getClassName().startsWith("com.sun.proxy"))
                .findFirst().map(StackWalker.StackFrame::toStackTraceElement).map(String::valueOf).orElse("?"));
    }

    /**
     * Closes the free connections and makes new ones in their place, and forgets the dirt found,
     * for a test that dirtied them on purpose.
     */
    public void replaceFree() throws SQLException {
        List<Pooled> replaced;
        synchronized (this) {
            replaced = new ArrayList<>(free);
            free.clear();
            dirtOnReturn.clear();
        }
        for (Pooled pooled : replaced) {
            close(pooled.physical());
            Pooled fresh = make();
            synchronized (this) {
                made.remove(pooled);
                free.addLast(fresh);
            }
        }
    }

    /** @return the server session of the connection next in line to be lent */
    public synchronized long nextSession() {
        return Objects.requireNonNull(free.peekFirst(), "no free connection").session();
    }

    /** @return how many physical connections it dropped, found closed when given back or ended outside */
    public synchronized int droppedConnections() {
        return dropped.size();
    }

    /** @return how many physical connections it has made */
    public synchronized int madeConnections() {
        return made.size();
    }

    @Override
    public DataSource dataSource() {
        return this;
    }

    @Override
    public synchronized int borrowed() {
        return borrowed.size();
    }

    /** Drops the idle connections whose session was ended: what a pool's validation does. */
    @Override
    public synchronized void evictIdle() {
        free.removeIf(pooled -> {
            try {
                if (pooled.physical().isValid(5)) {
                    return false;
                }
            } catch (SQLException e) {
                // not valid
            }
            close(pooled.physical());
            dropped.add(pooled);
            return true;
        });
    }

    /**
     * Everything found dirty when it came back, then every connection the pool holds compared with
     * its state when it was made, and a transaction left open on its session.
     *
     * @return what differs, one line per difference; empty if every connection came back clean
     */
    public synchronized List<String> dirt() throws SQLException {
        List<String> dirt = new ArrayList<>(dirtOnReturn.values());
        for (Pooled pooled : borrowed) {
            dirt.add("session " + pooled.session() + " was not given back");
        }
        for (Pooled pooled : free) {
            dirt.addAll(differences(pooled));
        }
        return dirt;
    }

    private List<String> differences(Pooled pooled) throws SQLException {
        List<String> dirt = new ArrayList<>();
        String open = openTransaction(pooled);
        if (open != null) {
            dirt.add("session " + pooled.session() + " has a transaction open: " + open);
        }
        Map<String, String> now = state(pooled.physical());
        pooled.initial().forEach((name, before) -> {
            if (!Objects.equals(before, now.get(name))) {
                dirt.add("session " + pooled.session() + ": " + name + " was " + before + ", is " + now.get(name));
            }
        });
        return dirt;
    }

    /**
     * Not {@code information_schema.innodb_trx}: InnoDB refreshes it at most every 100 ms, and a read
     * soon after another misses a transaction begun in between. MariaDB tells in the session itself
     * (a read of a variable starts none); MySQL 8 has no such variable, and its performance schema
     * is current.
     *
     * @return what shows a transaction open on the session, seen from another session where the
     * database shows it there; null if none
     */
    private String openTransaction(Pooled pooled) throws SQLException {
        if (database == TestDatabase.MARIADB) {
            try (Statement read = pooled.physical().createStatement();
                 ResultSet row = read.executeQuery("SELECT @@in_transaction")) {
                row.next();
                return row.getInt(1) == 0 ? null : "@@in_transaction is " + row.getInt(1);
            }
        }
        String sql = switch (database) {
            case MYSQL8 -> "SELECT CONCAT('performance_schema transaction ', t.STATE)"
                    + " FROM performance_schema.events_transactions_current t"
                    + " JOIN performance_schema.threads s ON s.THREAD_ID = t.THREAD_ID"
                    + " WHERE s.PROCESSLIST_ID = ? AND t.STATE = 'ACTIVE'";
            case POSTGRESQL -> "SELECT 'pg_stat_activity state ' || state FROM pg_stat_activity WHERE pid = ?"
                    + " AND state IS DISTINCT FROM 'idle'";
            case H2 -> "SELECT 'uncommitted changes' FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = ?"
                    + " AND CONTAINS_UNCOMMITTED";
            default -> throw new IllegalArgumentException(database + " is not covered");
        };
        synchronized (monitorLock) {
            if (monitor == null || monitor.isClosed()) {
                monitor = database.connect();
            }
            try (PreparedStatement find = monitor.prepareStatement(sql)) {
                find.setLong(1, pooled.session());
                try (ResultSet row = find.executeQuery()) {
                    return row.next() ? row.getString(1) : null;
                }
            }
        }
    }

    private long session(Connection physical) throws SQLException {
        try (Statement read = physical.createStatement(); ResultSet id = read.executeQuery(switch (database) {
            case MARIADB, MYSQL8 -> "SELECT CONNECTION_ID()";
            case POSTGRESQL -> "SELECT pg_backend_pid()";
            case H2 -> "SELECT SESSION_ID()";
            default -> throw new IllegalArgumentException(database + " is not covered");
        })) {
            id.next();
            return id.getLong(1);
        }
    }

    /**
     * The connection's state as JDBC reports it, and the session settings the lock's statements touch
     * or could touch, read on the session itself (a read changes none of them while autocommit is on).
     */
    private Map<String, String> state(Connection physical) throws SQLException {
        Map<String, String> state = new LinkedHashMap<>();
        state.put("autoCommit", Boolean.toString(physical.getAutoCommit()));
        state.put("transactionIsolation", Integer.toString(physical.getTransactionIsolation()));
        state.put("readOnly", Boolean.toString(physical.isReadOnly()));
        state.put("catalog", physical.getCatalog());
        state.put("schema", physical.getSchema());
        state.put("networkTimeout", Integer.toString(physical.getNetworkTimeout()));
        state.put("holdability", Integer.toString(physical.getHoldability()));
        String settings = switch (database) {
            case MARIADB -> "SELECT @@SESSION.innodb_lock_wait_timeout AS innodb_lock_wait_timeout,"
                    + " @@SESSION.lock_wait_timeout AS lock_wait_timeout, @@SESSION.time_zone AS time_zone,"
                    + " @@SESSION.tx_isolation AS tx_isolation, @@SESSION.tx_read_only AS tx_read_only,"
                    + " @@SESSION.autocommit AS session_autocommit, @@SESSION.sql_mode AS sql_mode,"
                    + " @@SESSION.max_statement_time AS max_statement_time, @locked_lock_wait AS locked_lock_wait";
            case MYSQL8 -> "SELECT @@SESSION.innodb_lock_wait_timeout AS innodb_lock_wait_timeout,"
                    + " @@SESSION.lock_wait_timeout AS lock_wait_timeout, @@SESSION.time_zone AS time_zone,"
                    + " @@SESSION.transaction_isolation AS transaction_isolation,"
                    + " @@SESSION.transaction_read_only AS transaction_read_only,"
                    + " @@SESSION.autocommit AS session_autocommit, @@SESSION.sql_mode AS sql_mode,"
                    + " @@SESSION.max_execution_time AS max_execution_time, @locked_lock_wait AS locked_lock_wait";
            case POSTGRESQL -> "SELECT current_setting('lock_timeout') AS lock_timeout,"
                    + " current_setting('statement_timeout') AS statement_timeout,"
                    + " current_setting('application_name') AS application_name,"
                    + " current_setting('synchronous_commit') AS synchronous_commit,"
                    + " current_setting('idle_in_transaction_session_timeout') AS idle_in_transaction_session_timeout,"
                    + " current_setting('transaction_isolation') AS transaction_isolation,"
                    + " current_setting('default_transaction_isolation') AS default_transaction_isolation,"
                    + " current_setting('transaction_read_only') AS transaction_read_only,"
                    + " current_setting('TimeZone') AS time_zone, current_setting('search_path') AS search_path";
            case H2 -> "SELECT LOCK_TIMEOUT() AS lock_timeout, ISOLATION_LEVEL AS isolation_level"
                    + " FROM INFORMATION_SCHEMA.SESSIONS WHERE SESSION_ID = SESSION_ID()";
            default -> throw new IllegalArgumentException(database + " is not covered");
        };
        try (Statement read = physical.createStatement(); ResultSet row = read.executeQuery(settings)) {
            row.next();
            ResultSetMetaData columns = row.getMetaData();
            for (int column = 1; column <= columns.getColumnCount(); column++) {
                state.put(columns.getColumnLabel(column).toLowerCase(), row.getString(column));
            }
        }
        return state;
    }

    /** Closes every physical connection, borrowed or not. */
    @Override
    public synchronized void close() {
        for (Pooled pooled : made) {
            close(pooled.physical());
        }
        synchronized (monitorLock) {
            if (monitor != null) {
                close(monitor);
            }
        }
        free.clear();
        borrowed.clear();
    }

    private static void close(Connection physical) {
        try {
            physical.close();
        } catch (SQLException ignored) {
            // gone already
        }
    }
}
