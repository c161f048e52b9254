package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.util.Collections;

/**
 * How one database renews a batch of leases: each lease as {@link Dialect#renewLease} renews one,
 * by key, owner and token, only if not yet expired on a clock read after its row lock was granted
 * ({@link Dialect#grantedAt}), and never to an earlier end than the row's.
 *
 * <p>Parameters of {@link #renew}: lease micros, then {@link #SIZE} keys, then as many (key, owner,
 * token) triples in the same order (the last lease repeated to fill both lists); or, where
 * {@link #byArrays}, lease micros and three arrays of any length: keys, owners, tokens. Where
 * {@link #readRenewed} is null, {@link #renew} returns the owner and the new version of each lease it
 * renewed.
 *
 * @param renew       the renewal statement
 * @param readRenewed where the renewal returns no rows: a read, in a statement of its own after it
 *                    where it counted fewer rows than the batch has leases (else each was renewed),
 *                    of the key, owner, token and version of each row of the batch's {@link #SIZE}
 *                    keys (padded as the renewal's) whose lease is live. The leases renewed are those
 *                    whose owner and token it returns: one it did not renew had expired (and stays so,
 *                    since only its own holder's next renewal could extend it, and the database clock
 *                    does not step back) or was another owner's. Where it is given, both statements are
 *                    sent with their values written into the text ({@link InlinedStatement}) instead of
 *                    bound: Connector/J would scan their 500 placeholders on every batch, and write each
 *                    value into the text itself (most of a batch's CPU). Null elsewhere
 * @param byArrays    whether the leases are bound as three arrays
 * @param skippingHeldRows where a batch would wait for a row another session holds within its bound, holding
 *                    back every lease of the batch, and then fail as a whole: the renewal that skips such rows
 *                    and says which it locked, bound as {@link #renew} is by arrays. It locks only rows still under
 *                    a lease of the batch, and returns one row per row it locked: the key, then the owner and
 *                    new version of the lease renewed there, or nulls where that lease had run out (lost). A
 *                    lease whose key does not come back (its row held elsewhere for a moment: an acquirer that
 *                    found it live, a forced release, its holder's release; or under another lease, or none) is
 *                    judged by {@link #renew} after it, which waits for a held row: where that fails, the whole
 *                    batch does (the SPI tells no lease's failure apart). Null elsewhere (MySQL 8:
 *                    {@link RenewalStatements#freeRowsRenewal})
 */
public record RenewalBatch(String renew, String readRenewed, boolean byArrays, String skippingHeldRows) {
    /** A batch that renews in one text only. */
    public RenewalBatch(String renew, String readRenewed, boolean byArrays) {
        this(renew, readRenewed, byArrays, null);
    }

    /**
     * How many leases one batch renews at most. 10,000 leases renewed every 10 s (a 30 s lease) are
     * then 10 batches a second, 10 statements (more where a batch lost a lease and is read back, or
     * where MySQL 8 sets its lock wait around it): a tenth of the target of 100. A larger batch would
     * cut little more, while it keeps more rows locked until its commit and makes more leases wait when
     * one row is locked by another session. A fixed length, so that each database has one text,
     * prepared once.
     */
    public static final int SIZE = 100;

    /**
     * The lists of keys and leases, each row judged by key, owner and token, and live on the clock
     * given; the keys alone let the primary key find the batch's rows (and lock no others).
     */
    static String batchHeld(String clock) {
        return " WHERE lock_key IN (" + String.join(", ", Collections.nCopies(SIZE, "?"))
                + ") AND (lock_key, owner, token) IN (" + String.join(", ", Collections.nCopies(SIZE, "(?, ?, ?)"))
                + ") AND expires_at > " + clock;
    }

    /**
     * A renewal in padded lists, then a read of the leases it renewed (see {@link #readRenewed}), for
     * a database whose {@code UPDATE} judges its condition on the row as locked (InnoDB's locking read).
     * Both written out (see {@link #readRenewed}): the read gives the keys alone, a quarter of the renewal's values.
     *
     * @param hint      an index hint after the table's name, or empty
     * @param now       the database's clock, for the read
     * @param grantedAt the clock read after the row lock, for judging the renewal
     * @param leaseEnd  the clock plus the lease micros parameter
     */
    static RenewalBatch updateThenRead(String hint, String now, String grantedAt, String leaseEnd) {
        return new RenewalBatch("UPDATE " + LockRow.TABLE + hint + " SET version = version + 1, expires_at = GREATEST(expires_at, "
                + leaseEnd + ")" + batchHeld(grantedAt),
                "SELECT lock_key, owner, token, version FROM " + LockRow.TABLE + hint + " WHERE lock_key IN ("
                        + String.join(", ", Collections.nCopies(SIZE, "?")) + ") AND expires_at > " + now, false);
    }
}
