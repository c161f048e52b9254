package io.locked.jpa.internal.nativepath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockTokens;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.logging.Logger;

/**
 * Whether the server reads the token clock at the statement's start after all (MariaDB started with
 * {@code --sysdate-is-now}), asked once: at start-up, or by the first lock call if the database was
 * down then. There a statement that waited for a row lock would draw a token below one that a
 * holder granted during the wait used and then lost in a rollback, so the lock store reads the clock
 * again after each pessimistic lock ({@link Dialect#tokenAfterRowLock()}), takes leases without
 * queueing for a row lock (busy at once, tried again, as on MySQL), and commits every token.
 */
final class KnownTokenClock {
    private static final Logger LOG = Logger.getLogger(KnownTokenClock.class.getName());
    private final LockConnections connections;
    private final String probe;
    /** Whether the clock is read at the statement's start; null while not known. */
    private volatile Boolean atStatementStart;

    KnownTokenClock(LockConnections connections, Dialect database) {
        this.connections = connections;
        this.probe = database.tokenClockAtStatementStart();
        this.atStatementStart = probe == null ? Boolean.FALSE : null;
    }

    /** Asks the server at start-up; a database that is down is asked again by the first lock call. */
    void askAtStartUp() {
        try {
            atStatementStart(CallBounds.brief());
        } catch (SQLException | RuntimeException unreachable) {
            // the first lock call asks again, and fails clearly if it cannot
        }
    }

    /**
     * @return whether the token clock is read at the statement's start on this server
     * @throws LockStoreUnavailableException naming the key if the server cannot be asked within the bounds
     */
    boolean atStatementStart(String key, CallBounds bounds) {
        Boolean known = atStatementStart;
        if (known != null) {
            return known;
        }
        try {
            return atStatementStart(bounds);
        } catch (SQLException | RuntimeException unreachable) {
            throw new LockStoreUnavailableException(key, "asking how the database reads its token clock failed", unreachable);
        }
    }

    private synchronized boolean atStatementStart(CallBounds bounds) throws SQLException {
        Boolean known = atStatementStart;
        if (known != null) {
            return known;
        }
        boolean frozen = LockTransaction.autocommit(connections, bounds, connection -> {
            try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(probe)) {
                return row.next() && row.getBoolean(1);
            }
        });
        if (frozen) {
            LOG.warning(() -> "The database server was started with --sysdate-is-now, so SYSDATE(), the clock Locked"
                    + " draws fencing tokens from, reads the statement's start, before any wait for a row lock. So"
                    + " that no token falls below one an earlier holder used, this lock store reads the clock again"
                    + " once a pessimistic lock holds its row (one more statement per acquisition), takes leases"
                    + " without queueing for a pessimistic holder's row lock (a take then answers busy and is tried"
                    + " again), and commits every pessimistic token (" + LockTokens.KEY + "=clock acts as written)."
                    + " The option is needed only for statement-based replication: without it these costs go away");
        }
        atStatementStart = frozen;
        return frozen;
    }
}
