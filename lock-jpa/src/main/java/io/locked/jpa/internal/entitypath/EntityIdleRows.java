package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.LOCK_TIMEOUT;
import static io.locked.jpa.internal.entitypath.EntityRows.NO_WAIT;
import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.cleanup.IdleRowBatches;
import io.locked.jpa.internal.connection.CallBounds;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.TypedQuery;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Deletes the rows of keys idle for a while through the {@code EntityManager}, in batches
 * ({@link IdleRowBatches}), without ever waiting behind a holder or making an acquirer wait.
 */
final class EntityIdleRows {
    private static final LockRowAccess ROWS = LockRowAccess.rows();
    // rows created but never acquired have no acquired_at yet
    // never a row whose token the clock has not passed (it stepped back): the key's next row would draw
    // its token from the clock, below the deleted one
    private static final String IDLE = "(r.acquiredAt IS NULL OR r.acquiredAt < :idleSince)"
            + " AND (r.owner IS NULL OR r.expiresAt < :idleSince) AND r.token < :nowMicros";

    private final DatabaseClock clock;
    private final EntityTransactions ownTransactions;

    EntityIdleRows(DatabaseClock clock, EntityTransactions ownTransactions) {
        this.clock = clock;
        this.ownTransactions = ownTransactions;
    }

    int deleteIdleRows(Duration idleFor) {
        if (idleFor == null || idleFor.isNegative() || idleFor.isZero()) {
            throw new IllegalArgumentException("Idle time must be positive, was " + idleFor);
        }
        CallBounds bounds = CallBounds.maintenance();
        Instant now = ownTransactions.inTransaction("(cleanup)", "reading the database clock", bounds, manager -> {
            // a count always answers one row, and the empty key is never locked: no row lock to wait for
            Object[] answer = (Object[]) manager.createQuery("SELECT COUNT(r), " + clock.jpql()
                            + " FROM LockRow r WHERE r.key = :none")
                    .setParameter("none", "").setHint(QUERY_TIMEOUT, bounds.statementMillis()).getSingleResult();
            return clock.instant(answer[1]);
        }, false);
        Idle idle = new Idle(now.minus(idleFor), now);
        return IdleRowBatches.run(after -> deleteIdleBatch(after, idle));
    }

    // A batch reads the next idle keys, then locks them all at once without waiting, judges each row
    // again exactly and removes the idle ones, each step a short transaction. JPA has no SKIP LOCKED:
    // where a row of the batch is locked right now (a pessimistic holder's), the lock fails at once and
    // the batch is done again key by key, each key in a transaction of its own that skips the held
    // one. So a cleanup never makes an acquirer wait and never waits behind a holder.
    private IdleRowBatches.Batch deleteIdleBatch(String after, Idle idle) {
        CallBounds bounds = CallBounds.maintenance();
        List<String> candidates = ownTransactions.inTransaction("(cleanup)", "finding idle rows", bounds,
                manager -> idleKeys(manager, after, idle, bounds), false);
        if (candidates.isEmpty()) {
            return IdleRowBatches.Batch.END;
        }
        Integer deleted = ownTransactions.inTransaction("(cleanup)", "deleting idle rows", bounds, manager -> {
            int removed = 0;
            for (LockRow row : manager.createQuery("SELECT r FROM LockRow r WHERE r.key IN :keys", LockRow.class)
                    .setParameter("keys", candidates)
                    .setLockMode(LockModeType.PESSIMISTIC_WRITE)
                    .setHint(LOCK_TIMEOUT, NO_WAIT)
                    .setHint(QUERY_TIMEOUT, EntityRows.statementMillis(NO_WAIT))
                    .getResultList()) {
                if (idle.of(row)) {
                    manager.remove(row);
                    removed++;
                }
            }
            // here rather than at commit: a delete that meets another transaction's write is busy
            manager.flush();
            return removed;
        }, true);
        if (deleted == null) {
            deleted = 0;
            for (String key : candidates) {
                deleted += deleteIfStillIdle(key, idle);
            }
        }
        return new IdleRowBatches.Batch(candidates, deleted);
    }

    /** What makes a row idle: free and not acquired since {@code since}, and a token below the clock's {@code now}. */
    private record Idle(Instant since, Instant now) {
        boolean of(LockRow row) {
            return ROWS.idleSince(row, since, now);
        }

        long nowMicros() {
            return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        }
    }

    // A driver that drops the fraction of a bound time must not make a row look busy: the query may
    // find too many (the time is rounded up), and each row is judged again, exactly, once locked.
    private static List<String> idleKeys(EntityManager manager, String after, Idle idle, CallBounds bounds) {
        TypedQuery<String> read = manager.createQuery("SELECT r.key FROM LockRow r WHERE " + IDLE
                        + (after == null ? "" : " AND r.key > :after") + " ORDER BY r.key", String.class)
                .setParameter("idleSince", EntityLeases.expiry(idle.since(), Duration.ZERO))
                .setParameter("nowMicros", idle.nowMicros())
                .setMaxResults(IdleRowBatches.SIZE)
                .setHint(QUERY_TIMEOUT, bounds.statementMillis());
        if (after != null) {
            read.setParameter("after", after);
        }
        return read.getResultList();
    }

    // One short transaction for a row that skips it if locked right now; the removal is guarded by
    // the version it locked.
    private int deleteIfStillIdle(String key, Idle idle) {
        CallBounds bounds = CallBounds.maintenance();
        Integer deleted = ownTransactions.inTransaction(key, "deleting an idle row", bounds, manager -> {
            LockRow row = EntityRows.lockRow(manager, key, NO_WAIT);
            if (row == null || !idle.of(row)) {
                return 0;
            }
            manager.remove(row);
            return 1;
        }, true);
        return deleted == null ? 0 : deleted;
    }
}
