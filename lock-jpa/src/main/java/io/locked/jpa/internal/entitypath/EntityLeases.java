package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.spi.Lease;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Optimistic leases on the JPA path: takes, renews, hands over and releases them. A take row-locks
 * the key; each renewal, hand-over and release reads the row with the database's clock in one query,
 * judges it, and writes it with one JPQL update: a renewal and a hand-over guarded by the version they
 * read (a compare-and-set on the {@code @Version}), a release by owner and token. Expiry is judged only
 * on that clock.
 */
final class EntityLeases {
    private static final LockRowAccess ROWS = LockRowAccess.rows();
    /** The answer of a take whose key has no row. */
    private static final Lease MISSING = new Lease("", "", 0, 0);

    private final DatabaseClock clock;
    private final EntityTransactions ownTransactions;
    private final EntityRows rows;
    private final String readRow;
    private final String handOverIfUnchanged;
    private final String renewIfUnchanged;
    private final String freeIfOwned;
    private final String holdIfOwned;

    EntityLeases(DatabaseClock clock, EntityTransactions ownTransactions, EntityRows rows) {
        this.clock = clock;
        this.ownTransactions = ownTransactions;
        this.rows = rows;
        this.readRow = "SELECT r.version, r.token, r.owner, r.expiresAt, r.acquiredAt, " + clock.jpql()
                + " FROM LockRow r WHERE r.key = :key";
        String unchanged = " WHERE r.key = :key AND r.version = :version";
        this.handOverIfUnchanged = "UPDATE LockRow r SET r.owner = :owner, r.holder = :holder, r.token = :token,"
                + " r.acquiredAt = :now, r.expiresAt = :expires, r.version = r.version + 1" + unchanged;
        this.renewIfUnchanged = "UPDATE LockRow r SET r.expiresAt = :expires, r.version = r.version + 1" + unchanged;
        // a release is not judged on the lease's end, which only its own renewals move (later): a
        // renewal in flight that lands between its read and its write must not make it read again
        String owned = " WHERE r.key = :key AND r.owner = :owner AND r.token = :token";
        this.freeIfOwned = "UPDATE LockRow r SET r.owner = NULL, r.expiresAt = NULL, r.version = r.version + 1" + owned;
        this.holdIfOwned = "UPDATE LockRow r SET r.expiresAt = :expires, r.version = r.version + 1" + owned;
    }

    Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        CallBounds bounds = CallBounds.forWait(dbWait, Duration.ZERO);
        Lease taken = take(key, owner, holder, lease, bounds);
        if (taken == MISSING) {
            rows.createRow(key, bounds);
            taken = take(key, owner, holder, lease, bounds);
        }
        return taken == MISSING ? null : taken;
    }

    // The take row-locks first and reads the clock after the grant, as a pessimistic acquisition
    // does: a pessimistic holder granted while the take waited may have used its token and been
    // rolled back, and this token must still be higher (a clock read before the wait would not be).
    private Lease take(String key, String owner, String holder, Duration lease, CallBounds bounds) {
        return ownTransactions.inTransaction(key, "taking the lease", bounds, manager -> {
            LockRow row = rows.lockRow(manager, key, bounds);
            if (row == null) {
                return MISSING;
            }
            Instant now = rows.now(manager, key, bounds);
            if (ROWS.leasedAt(row, now) && !owner.equals(row.getOwner())) {
                return null; // a live lease, not this acquisition's own (taken by an earlier try whose answer was lost)
            }
            long token = DatabaseClock.nextToken(row.getToken(), now);
            // written at commit, guarded by the version it was read with
            ROWS.leasedTo(row, owner, holder, token, now, expiry(now, lease));
            manager.flush();
            return new Lease(key, owner, token, row.getVersion());
        }, true);
    }

    /**
     * Never to an earlier end than the row's: a renewal on its way when its holder released with a
     * minimum hold finds the hold, live and the owner's, and must leave it whole. The read judges the
     * lease before the write's wait for the row lock; the clock is read again once the write has the
     * row (one statement more), and a lease that ran out in between (while another acquirer held the
     * row, and rolled back) is not renewed: the write is rolled back, and the lease is lost.
     */
    Lease renewLease(Lease lease, Duration duration) {
        CallBounds bounds = CallBounds.forRenewal(duration);
        return untilSettled(lease.key(), "renewing the lease", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !row.liveFor(lease)) {
                return Attempt.settled(null);
            }
            Instant renewedEnd = expiry(row.now(), duration);
            int written = manager.createQuery(renewIfUnchanged)
                    .setParameter("expires", renewedEnd.isAfter(row.expiresAt()) ? renewedEnd : row.expiresAt())
                    .setParameter("key", lease.key()).setParameter("version", row.version())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            if (written != 1) {
                return Attempt.again();
            }
            // the version is the one read, so the end is too: judged again on a clock read after the lock
            if (!row.expiresAt().isAfter(rows.now(manager, lease.key(), bounds))) {
                return Attempt.undone(null);
            }
            return Attempt.settled(new Lease(lease.key(), lease.owner(), lease.token(), row.version() + 1));
        });
    }

    Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        try {
            return handOver(lease, newOwner, holder, duration);
        } catch (LockStoreUnavailableException replyLost) {
            // applied or not: a lost commit reply must not leave the row in the successor's name unknown to both
            return successorsLeaseAfter(replyLost, lease.key(), newOwner);
        }
    }

    /** A hand-over's commit reply was lost: the row is the successor's if it was applied. */
    private Lease successorsLeaseAfter(LockStoreUnavailableException replyLost, String key, String newOwner) {
        CallBounds bounds = CallBounds.brief();
        Row row;
        try {
            row = ownTransactions.inTransaction(key, "checking a hand-over", bounds,
                    manager -> read(manager, key, bounds), false);
        } catch (LockStoreUnavailableException stillDown) {
            replyLost.addSuppressed(stillDown);
            throw replyLost;
        }
        if (row == null || !newOwner.equals(row.owner())) {
            throw replyLost;
        }
        return new Lease(key, newOwner, row.token(), row.version());
    }

    private Lease handOver(Lease lease, String newOwner, String holder, Duration duration) {
        CallBounds bounds = CallBounds.brief();
        return untilSettled(lease.key(), "handing the lease over", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !row.liveFor(lease)) {
                return Attempt.settled(null);
            }
            // the row is this owner's: no pessimistic holder can have drawn a token on it meanwhile
            long token = DatabaseClock.nextToken(row.token(), row.now());
            int written = manager.createQuery(handOverIfUnchanged)
                    .setParameter("owner", newOwner).setParameter("holder", holder).setParameter("token", token)
                    .setParameter("now", row.now()).setParameter("expires", expiry(row.now(), duration))
                    .setParameter("key", lease.key()).setParameter("version", row.version())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            return written == 1 ? Attempt.settled(new Lease(lease.key(), newOwner, token, row.version() + 1))
                    : Attempt.again();
        });
    }

    /**
     * Frees the lease, or with a minimum hold leaves it ending that long after it was taken.
     *
     * @param holdAtLeast the minimum hold, or null to free the row
     */
    boolean releaseLease(Lease lease, Duration holdAtLeast) {
        CallBounds bounds = CallBounds.brief();
        return untilSettled(lease.key(), "releasing the lease", bounds, manager -> {
            Row row = read(manager, lease.key(), bounds);
            if (row == null || !lease.owner().equals(row.owner()) || lease.token() != row.token()) {
                return Attempt.settled(false); // taken over: never touch another owner's row
            }
            boolean live = row.liveFor(lease);
            Instant heldUntil = live && holdAtLeast != null && row.acquiredAt() != null
                    ? holdEnd(row.acquiredAt(), holdAtLeast) : null;
            // an expired row still ours is freed too, though the holder must learn it was lost
            boolean free = heldUntil == null || !heldUntil.isAfter(row.now());
            var write = free ? manager.createQuery(freeIfOwned)
                    : manager.createQuery(holdIfOwned).setParameter("expires", heldUntil);
            int written = write.setParameter("key", lease.key()).setParameter("owner", lease.owner())
                    .setParameter("token", lease.token())
                    .setHint(QUERY_TIMEOUT, bounds.statementMillis())
                    .executeUpdate();
            // none: taken over between the read and the write, which the next read tells
            return written == 1 ? Attempt.settled(live) : Attempt.again();
        });
    }

    /**
     * One read and compare-and-set: its answer, or "the version moved, read again"; an answer whose
     * write is rolled back rather than committed is {@link #undone}.
     */
    private record Attempt<T>(boolean settled, T value, boolean commits) {
        static <T> Attempt<T> settled(T value) {
            return new Attempt<>(true, value, true);
        }

        static <T> Attempt<T> undone(T value) {
            return new Attempt<>(true, value, false);
        }

        static <T> Attempt<T> again() {
            return new Attempt<>(false, null, true);
        }
    }

    /**
     * Repeats a read and compare-and-set, each in a transaction of its own (a snapshot would show the
     * same row again), until it settles. The core may renew, hand over and release one lease at once,
     * so the version can move under a renewal's or hand-over's write for a reason that leaves the lease
     * live (a release is guarded by owner and token, which that leaves as they were); a takeover is
     * seen by the next read. Bounded by the call's time.
     */
    private <T> T untilSettled(String key, String what, CallBounds bounds,
                               EntityTransactions.Work<Attempt<T>> attempt) {
        while (true) {
            Attempt<T> outcome;
            try {
                outcome = ownTransactions.inTransaction(key, what, attempt, false, Attempt::commits);
            } catch (LockStoreUnavailableException failure) {
                if (!LockConflicts.isWriteConflict(failure)) {
                    throw failure;
                }
                // a concurrent write of the same row won (HSQLDB's serializable transactions say so
                // instead of matching no row; a deadlock victim too): as a moved version, read again
                outcome = Attempt.again();
            }
            if (outcome.settled()) {
                return outcome.value();
            }
            if (bounds.borrowNanos() == 0) {
                throw new LockStoreUnavailableException(key, what + " kept meeting concurrent writes for "
                        + bounds.borrowWait(), null);
            }
        }
    }

    /**
     * A lease's end, rounded up to a whole second: some drivers drop the fraction when they send a
     * time (Connector/J to a MariaDB that reports itself as "5.5.5-10.x" does), and a lease that
     * ended before its holder thought would let a second holder in. Rounded up, it only ends later.
     */
    static Instant expiry(Instant now, Duration lease) {
        Instant end = now.plus(lease);
        return end.getNano() == 0 ? end : end.truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
    }

    /**
     * A minimum hold's end, {@code hold} after the lease's start as read back from the row. A start
     * with no fraction may have lost it on its way in (see {@link #expiry}): it counts a second later.
     */
    static Instant holdEnd(Instant acquiredAt, Duration hold) {
        return expiry(acquiredAt.getNano() == 0 ? acquiredAt.plusSeconds(1) : acquiredAt, hold);
    }

    /** The row as one query read it, with the database's clock at that moment. */
    private record Row(long version, long token, String owner, Instant expiresAt, Instant acquiredAt, Instant now) {
        boolean free() {
            return owner == null || expiresAt == null || !expiresAt.isAfter(now);
        }

        boolean liveFor(Lease lease) {
            return lease.owner().equals(owner) && lease.token() == token && expiresAt != null && expiresAt.isAfter(now);
        }
    }

    private Row read(EntityManager manager, String key, CallBounds bounds) {
        List<?> found = manager.createQuery(readRow).setParameter("key", key)
                .setHint(QUERY_TIMEOUT, bounds.statementMillis()).getResultList();
        if (found.isEmpty()) {
            return null;
        }
        Object[] row = (Object[]) found.get(0);
        return new Row(((Number) row[0]).longValue(), ((Number) row[1]).longValue(), (String) row[2],
                (Instant) row[3], (Instant) row[4], clock.instant(row[5]));
    }
}
