package io.locked.jpa.internal.dialect;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * How one database renews leases, alone and in batches, guarded by owner and token (not version: a
 * renewal whose reply was lost must not make the next one fail).
 *
 * <p>A renewal never shortens a row's lease: it sets the later of the row's end and its own
 * ({@code GREATEST}). A renewal on its way when its holder released with a minimum hold lands on a row
 * still the owner's, under its token and live, whose end is the hold's: it must leave the hold whole.
 * It judges "live" on a clock read at the row, after its row lock was granted
 * ({@link Dialect#grantedAt}): a clock read before a wait (a statement's start on MariaDB, MySQL and
 * H2; PostgreSQL and H2 judge an {@code UPDATE}'s condition before they wait, and not again when the
 * transaction they waited for rolls back) would renew a lease that ran out during the wait, while
 * another acquirer held the row and then rolled back. Its run on the server is bounded below its
 * client's network timeout: a statement that outlived its client would still land, later.
 */
public interface RenewalStatements {
    /** @return how this database renews a batch of leases */
    RenewalBatch renewalBatch();

    /**
     * The renewal of one lease: lease micros, key, owner, token; answers by its count.
     *
     * @return the statement, or null where a lone lease is renewed by {@link #renewalBatch()} as well
     */
    default String renewLease() {
        return null;
    }

    /**
     * Where a batch would wait for a row another session holds in whole seconds, and then up to two more
     * (MySQL 8: {@link #renewalBoundLateness}), long enough to outlive a short lease of every lease in the
     * batch: the batch's renewal that skips such rows. Where it renews fewer leases than the batch has, a
     * transaction locks the rows no other session holds and renews the leases found there under their
     * owners (one whose row is there under another owner was lost); each other lease is judged by its
     * row as last committed, and renewed alone where that shows it live under its owner and token (its
     * row was held only for a moment).
     *
     * @return the statements, or null where a batch waits within its bound
     */
    default FreeRowsRenewal freeRowsRenewal() {
        return null;
    }

    /**
     * @param statement    a renewal, alone or of a batch
     * @param serverMillis how long it may run on the server, its lock waits included
     * @return the statement with that bound written in, where the database bounds a statement in its text
     */
    default String withRenewalBound(String statement, long serverMillis) {
        return statement;
    }

    /**
     * @param serverMillis how long the renewal may run on the server
     * @return the settings sent first with a renewal, in the same round trip, or null: where the
     *         database bounds a statement by a setting, that bound, with the commit's wait for the
     *         standbys where asked ({@link RowStatements#durableWriteSettings()})
     */
    default String renewalSettings(long serverMillis) {
        return null;
    }

    /**
     * @return how much later than the bound it was given ({@link #withRenewalBound}, {@link #renewalSettings},
     *         {@link #boundRenewal}) the server may end a renewal: the call's bound makes room for it
     */
    default Duration renewalBoundLateness() {
        return Duration.ZERO;
    }

    /**
     * Bounds the lock waits of the renewals that follow on this connection, until it is closed, where
     * neither the statement's text nor its settings can ({@link #withRenewalBound},
     * {@link #renewalSettings}).
     */
    default SessionLockTimeout boundRenewal(Connection connection, long serverMillis) throws SQLException {
        return SessionLockTimeout.UNCHANGED;
    }
}
