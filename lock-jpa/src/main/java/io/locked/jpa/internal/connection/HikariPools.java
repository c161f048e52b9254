package io.locked.jpa.internal.connection;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The connections of a HikariCP pool, reached by reflection so that Locked does not depend on
 * HikariCP. Its pool borrows with a timeout of the caller's choosing ({@code HikariPool.getConnection(long)},
 * which {@code HikariDataSource.getConnection()} calls with the pool-wide timeout), and tells its
 * size and state for a warning.
 */
public final class HikariPools implements LockConnections {
    private static final String DATA_SOURCE = "com.zaxxer.hikari.HikariDataSource";
    private final DataSource dataSource;
    private final Method poolOfDataSource;
    private final Method maximumPoolSize;
    private final Method poolName;
    private volatile Object pool;
    private volatile Method borrow;

    private HikariPools(DataSource dataSource, Class<?> hikari) throws NoSuchMethodException {
        this.dataSource = dataSource;
        this.poolOfDataSource = hikari.getMethod("getHikariPoolMXBean");
        this.maximumPoolSize = hikari.getMethod("getMaximumPoolSize");
        this.poolName = hikari.getMethod("getPoolName");
    }

    /** @return the pool's connections, or null if the data source is not a HikariCP pool Locked can read */
    static LockConnections ifHikari(DataSource dataSource) {
        for (Class<?> type = dataSource.getClass(); type != null; type = type.getSuperclass()) {
            if (type.getName().equals(DATA_SOURCE)) {
                try {
                    return new HikariPools(dataSource, type);
                } catch (NoSuchMethodException | SecurityException otherVersion) {
                    return null;
                }
            }
        }
        return null;
    }

    @Override
    public Connection open() throws SQLException {
        return dataSource.getConnection();
    }

    @Override
    public Connection open(long waitNanos) throws SQLException {
        Object hikariPool = pool();
        if (hikariPool == null) {
            // a pool started on first use; its first borrow starts it, within its own timeout
            return dataSource.getConnection();
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999);
        try {
            return (Connection) borrow.invoke(hikariPool, millis);
        } catch (InvocationTargetException failed) {
            Throwable cause = failed.getCause();
            // a timeout with no cause: every connection was in use; with one: the database failed
            if (cause instanceof SQLTransientConnectionException timeout && timeout.getCause() == null) {
                throw new NoFreeConnection(describe());
            }
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new SQLException("HikariCP failed to lend a connection", cause);
        } catch (IllegalAccessException | RuntimeException unreadable) {
            return dataSource.getConnection();
        }
    }

    private Object pool() {
        Object known = pool;
        if (known != null) {
            return known;
        }
        try {
            Object found = poolOfDataSource.invoke(dataSource);
            if (found != null) {
                borrow = found.getClass().getMethod("getConnection", long.class);
                pool = found;
            }
            return found;
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return null;
        }
    }

    @Override
    public void close(Connection connection) throws SQLException {
        connection.close();
    }

    /**
     * HikariCP hands a connection back out without checking it when it was used in the last half
     * second, and drops one only on a connection-class SQL state: H2's aborted session answers with
     * its own state, and would be lent again. {@code evictConnection} drops it at once.
     */
    @Override
    public void discard(Connection connection) throws SQLException {
        try {
            dataSource.getClass().getMethod("evictConnection", Connection.class).invoke(dataSource, connection);
        } catch (ReflectiveOperationException | RuntimeException otherVersion) {
            connection.close();
        }
    }

    @Override
    public int maximumSize() {
        try {
            return (Integer) maximumPoolSize.invoke(dataSource);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return 0;
        }
    }

    @Override
    public java.util.OptionalInt inUse() {
        Object hikariPool = pool();
        Object active = hikariPool == null ? null : call("getActiveConnections", hikariPool);
        return active instanceof Integer count ? java.util.OptionalInt.of(count) : java.util.OptionalInt.empty();
    }

    @Override
    public String describe() {
        StringBuilder text = new StringBuilder("pool '").append(call(poolName, dataSource)).append("' (")
                .append(maximumSize()).append(" connections");
        Object hikariPool = pool();
        if (hikariPool != null) {
            text.append(": ").append(call("getActiveConnections", hikariPool)).append(" in use, ")
                    .append(call("getIdleConnections", hikariPool)).append(" idle, ")
                    .append(call("getThreadsAwaitingConnection", hikariPool)).append(" threads waiting");
        }
        return text.append(')').toString();
    }

    private static Object call(String method, Object target) {
        try {
            return call(target.getClass().getMethod(method), target);
        } catch (NoSuchMethodException unknown) {
            return "?";
        }
    }

    private static Object call(Method method, Object target) {
        try {
            return method.invoke(target);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return "?";
        }
    }
}
