package io.locked.jpa.internal.entitypath;

import static io.locked.jpa.internal.entitypath.EntityRows.QUERY_TIMEOUT;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.inspection.NativeInspection;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.LockRowState;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads the lock rows for an operator through JPQL: one key's state, or a page of keys under a
 * prefix, each as optimistically leased, pessimistically held or free.
 */
final class EntityInspection {
    /** How long reading a page of rows, or a forced release, may take. */
    static final Duration BOUND = Duration.ofSeconds(10);

    private final EntityManagers managers;
    private final DatabaseClock clock;
    private final UnitTransactions transactions;
    private final EntityTransactions ownTransactions;
    private final EntityRows lockRows;

    EntityInspection(EntityManagers managers, DatabaseClock clock, UnitTransactions transactions,
                     EntityTransactions ownTransactions, EntityRows lockRows) {
        this.managers = managers;
        this.clock = clock;
        this.transactions = transactions;
        this.ownTransactions = ownTransactions;
        this.lockRows = lockRows;
    }

    Optional<LockRowState> inspect(String key) {
        return states(key, "r.key = :key", Map.of("key", key), 1, true).stream().findFirst();
    }

    List<LockRowState> list(String prefix, String afterKey, int limit) {
        return states(prefix + "*", "r.key LIKE :prefix ESCAPE '!' AND r.key > :after",
                Map.of("prefix", NativeInspection.likePrefix(prefix), "after", afterKey == null ? "" : afterKey), limit,
                true);
    }

    /** The rows of the keys that have one, as {@link #inspect} reads one. */
    List<LockRowState> inspectAll(List<String> keys) {
        return states(NativeInspection.about(keys), "r.key IN :keys", Map.of("keys", keys), keys.size(), true);
    }

    /** As {@link #inspectAll}, but a row that is not leased is free: no row's lock is tried. */
    List<LockRowState> inspectLeases(List<String> keys) {
        return states(NativeInspection.about(keys), "r.key IN :keys", Map.of("keys", keys), keys.size(), false);
    }

    /**
     * The committed rows, each free one tried with a lock that does not wait, in a transaction of
     * its own, where {@code rowLocks} says so: a row that stays locked is held PESSIMISTIC, by a holder
     * whose row change (holder, token) JPA cannot read before it commits.
     */
    private List<LockRowState> states(String about, String filter, Map<String, Object> parameters, int limit,
                                      boolean rowLocks) {
        CallBounds bounds = CallBounds.within(BOUND);
        List<Object[]> rows = ownTransactions.inTransaction(about, "reading the lock rows", bounds, manager -> {
            var query = manager.createQuery("SELECT r.key, r.owner, r.holder, r.token, r.acquiredAt, r.expiresAt, "
                    + clock.jpql() + " FROM LockRow r WHERE " + filter + " ORDER BY r.key", Object[].class);
            parameters.forEach(query::setParameter);
            return query.setMaxResults(limit).setHint(QUERY_TIMEOUT, bounds.statementMillis()).getResultList();
        }, false);
        List<LockRowState> states = new ArrayList<>(rows.size());
        for (Object[] row : rows) {
            String key = (String) row[0];
            String owner = (String) row[1];
            Instant expiresAt = (Instant) row[5];
            if (owner != null && expiresAt != null && expiresAt.isAfter(clock.instant(row[6]))) {
                states.add(new LockRowState(key, LockMode.OPTIMISTIC, (String) row[2], ((Number) row[3]).longValue(),
                        (Instant) row[4], expiresAt, owner, null));
            } else if (rowLocks && rowLockedNow(key)) {
                states.add(new LockRowState(key, LockMode.PESSIMISTIC, null, null, null, null, null, null));
            } else {
                states.add(new LockRowState(key, null, (String) row[2], ((Number) row[3]).longValue(), (Instant) row[4],
                        null, null, null));
            }
        }
        return states;
    }

    /** Tries the row's lock without waiting, in a transaction of its own that is rolled back. */
    private boolean rowLockedNow(String key) {
        CallBounds bounds = CallBounds.within(BOUND);
        EntityManager manager = managers.open();
        try {
            transactions.begin(manager);
            if (lockRows.lockRowNow(manager, key) != null) {
                // an MVCC database that locks rows by writes only (HSQLDB) lets that read through: a
                // write that changes nothing meets a holder's write
                manager.createQuery("UPDATE LockRow r SET r.token = r.token WHERE r.key = :key")
                        .setParameter("key", key).setHint(QUERY_TIMEOUT, bounds.statementMillis()).executeUpdate();
            }
            return false;
        } catch (RuntimeException failure) {
            if (EntityConflicts.isBusy(failure)) {
                return true;
            }
            throw new LockStoreUnavailableException(key, "trying the row lock failed", failure);
        } finally {
            ownTransactions.end(manager);
        }
    }
}
