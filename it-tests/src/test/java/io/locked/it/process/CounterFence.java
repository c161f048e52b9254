package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.jpa.LockFence;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * How a worker increments the counter inside its critical section: the extension point of the
 * fenced-write tests. Without a fence, a holder that was paused or cut off past its lease still
 * writes the value it read before, after the takeover (the negative control); with one, that late
 * write is refused. A fenced increment reads the counter inside its fenced transaction, after the
 * fence, as {@link LockFence}'s rule says: a value read before the fence may be older than what a
 * late holder commits just before it, and writing that value plus one would lose the late write
 * (seen once in CI, on Galera, when the harness still read before the fence).
 */
public enum CounterFence {
    /** A plain write of the value read before: nothing stops a late one. */
    NONE {
        @Override
        long increment(Connection connection, String key, long readBefore, LockHandle lock) throws SQLException {
            Counter.write(connection, key, readBefore + 1);
            return readBefore;
        }
    },
    /** The counter row keeps the highest token that wrote and refuses lower ones: a fence at the resource. */
    TOKEN {
        @Override
        long increment(Connection connection, String key, long readBefore, LockHandle lock) throws SQLException {
            return inTransaction(connection, () -> {
                long current = Counter.readForUpdate(connection, key);
                return Counter.writeFenced(connection, key, current + 1, lock.token()) ? current : REFUSED;
            });
        }
    },
    /**
     * The library's fenced write: a transaction that calls {@link LockFence#check(Connection, LockHandle)}
     * first, then reads and writes, and rolls back when the check throws {@link LockLostException}.
     */
    LIBRARY {
        @Override
        long increment(Connection connection, String key, long readBefore, LockHandle lock) throws SQLException {
            return inTransaction(connection, () -> {
                try {
                    LockFence.check(connection, lock);
                } catch (LockLostException refused) {
                    return REFUSED;
                }
                long current = Counter.read(connection, key);
                Counter.write(connection, key, current + 1);
                return current;
            });
        }
    };

    /** What {@link #increment} answers when the fence refused the write. */
    public static final long REFUSED = -1;

    /**
     * @param connection an autocommit connection, left in autocommit
     * @param key        the lock key
     * @param readBefore the value the holder read on entering its section
     * @return the value the write added one to, or {@link #REFUSED}
     */
    abstract long increment(Connection connection, String key, long readBefore, LockHandle lock) throws SQLException;

    private interface Work {
        long run() throws SQLException;
    }

    /** Commits what the work did, or rolls it back when it refused or failed. */
    private static long inTransaction(Connection connection, Work work) throws SQLException {
        connection.setAutoCommit(false);
        try {
            long based = work.run();
            if (based == REFUSED) {
                connection.rollback();
            } else {
                connection.commit();
            }
            return based;
        } catch (SQLException | RuntimeException failed) {
            connection.rollback();
            throw failed;
        } finally {
            connection.setAutoCommit(true);
        }
    }
}
