package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * How a worker writes the counter inside its critical section: the extension point of the
 * fenced-write tests. Without a fence, a holder that was paused or cut off past its lease still
 * writes after the takeover (the negative control); with one, that late write is refused.
 */
public enum CounterFence {
    /** A plain write: nothing stops a late one. */
    NONE {
        @Override
        boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException {
            Counter.write(connection, key, value);
            return true;
        }
    },
    /** The counter row keeps the highest token that wrote and refuses lower ones: a fence at the resource. */
    TOKEN {
        @Override
        boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException {
            return Counter.writeFenced(connection, key, value, lock.token());
        }
    },
    /**
     * The library's fenced write (issue 11): a transaction that calls
     * {@code io.locked.jpa.LockFence.check(connection, handle)} before the write, and rolls back
     * when it throws {@link LockLostException}. Found by name until that class is on this branch;
     * then call it directly.
     */
    LIBRARY {
        @Override
        boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException {
            connection.setAutoCommit(false);
            try {
                libraryCheck(connection, lock);
                Counter.write(connection, key, value);
                connection.commit();
                return true;
            } catch (LockLostException refused) {
                connection.rollback();
                return false;
            } catch (SQLException | RuntimeException failed) {
                connection.rollback();
                throw failed;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    };

    private static final String LIBRARY_FENCE = "io.locked.jpa.LockFence";

    /**
     * @param connection an autocommit connection, left in autocommit
     * @param key        the lock key
     * @param value      the new counter value
     * @param lock       the handle held while writing
     * @return false if the fence refused the write
     */
    abstract boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException;

    /** @return whether the library's fence is on the classpath, so {@link #LIBRARY} can run */
    public static boolean libraryAvailable() {
        try {
            Class.forName(LIBRARY_FENCE);
            return true;
        } catch (ClassNotFoundException absent) {
            return false;
        }
    }

    private static void libraryCheck(Connection connection, LockHandle lock) throws SQLException {
        Method check;
        try {
            check = Class.forName(LIBRARY_FENCE).getMethod("check", Connection.class, LockHandle.class);
        } catch (ReflectiveOperationException absent) {
            throw new IllegalStateException(LIBRARY_FENCE + ".check(Connection, LockHandle) is not on the classpath", absent);
        }
        try {
            check.invoke(null, connection, lock);
        } catch (InvocationTargetException thrown) {
            if (thrown.getCause() instanceof SQLException failure) {
                throw failure;
            }
            if (thrown.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(thrown.getCause());
        } catch (IllegalAccessException unexpected) {
            throw new IllegalStateException(unexpected);
        }
    }
}
