package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.jpa.LockFence;
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
     * The library's fenced write: a transaction that calls {@link LockFence#check(Connection, LockHandle)}
     * before the write, and rolls back when it throws {@link LockLostException}.
     */
    LIBRARY {
        @Override
        boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException {
            connection.setAutoCommit(false);
            try {
                LockFence.check(connection, lock);
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

    /**
     * @param connection an autocommit connection, left in autocommit
     * @param key        the lock key
     * @param value      the new counter value
     * @param lock       the handle held while writing
     * @return false if the fence refused the write
     */
    abstract boolean write(Connection connection, String key, long value, LockHandle lock) throws SQLException;
}
