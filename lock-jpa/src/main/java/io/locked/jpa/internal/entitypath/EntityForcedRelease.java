package io.locked.jpa.internal.entitypath;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.LockStatements;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.internal.fence.JpaFenceTransaction;
import io.locked.jpa.internal.inspection.ForcedRelease;
import io.locked.spi.LockRowState;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * An operator's forced release on the JPA path: frees a live optimistic lease with a new token and
 * raises the key's fence to it where the fence table exists.
 */
final class EntityForcedRelease {
    private static final LockRowAccess ROWS = LockRowAccess.rows();
    private final EntityManagerFactory factory;
    private final EntityTransactions ownTransactions;
    private final EntityRows rows;
    private final EntityInspection inspection;

    EntityForcedRelease(EntityManagerFactory factory, EntityTransactions ownTransactions, EntityRows rows,
                        EntityInspection inspection) {
        this.factory = factory;
        this.ownTransactions = ownTransactions;
        this.rows = rows;
        this.inspection = inspection;
    }

    /**
     * Frees a live optimistic lease with a new token, and raises the key's fence to it where the
     * fence table exists. The JPA path cannot end another session: a pessimistic hold is refused.
     */
    Optional<LockRowState> forceRelease(String key, Duration lockDelay) {
        Optional<LockRowState> held = inspection.inspect(key).filter(LockRowState::held);
        if (held.isEmpty()) {
            return held;
        }
        LockRowState lease = held.get();
        if (lease.mode() == LockMode.PESSIMISTIC) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': it is held PESSIMISTIC, and the"
                    + " JPA path cannot end another database session. End the holder's process or transaction, or"
                    + " use the native statements (" + LockStatements.KEY + "=auto on MariaDB, MySQL, PostgreSQL or H2)");
        }
        boolean fenced = fenceTableExists(key);
        CallBounds bounds = CallBounds.within(EntityInspection.BOUND);
        Boolean freed = ownTransactions.inTransaction(key, "forcing the release", bounds, manager -> {
            LockRow row = EntityRows.lockRow(manager, key, (int) EntityInspection.BOUND.toMillis());
            if (row == null || !lease.owner().equals(row.getOwner())) {
                return false; // released or taken over meanwhile
            }
            Instant now = rows.now(manager, key, bounds);
            long token = DatabaseClock.nextToken(row.getToken(), now);
            if (lockDelay.isZero()) {
                ROWS.forcedFreeWith(row, token);
            } else {
                // a lease of no acquisition's, until the delay has passed
                ROWS.leasedTo(row, UUID.randomUUID().toString(), ForcedRelease.LOCK_DELAY_HOLDER, token, now,
                        EntityLeases.expiry(now, lockDelay));
            }
            manager.flush();
            if (fenced) {
                try {
                    FenceDetection.of(factory).raise(new JpaFenceTransaction(manager), key, token);
                } catch (SQLException failure) {
                    throw new PersistenceException("raising the fence of '" + key + "' failed", failure);
                }
            }
            return true;
            // a row held past the bound: the lease read ran out meanwhile and a pessimistic holder has
            // the key now (it cannot lock a row whose lease is live), so the hold read ended by itself
        }, true);
        return Boolean.TRUE.equals(freed) ? held : Optional.empty();
    }

    private boolean fenceTableExists(String key) {
        try {
            ownTransactions.inTransaction(key, "looking for the fence table", CallBounds.within(EntityInspection.BOUND),
                    manager -> manager.createNativeQuery(FenceStatements.PROBE).getSingleResult(), false);
            return true;
        } catch (LockStoreUnavailableException failure) {
            if (LockConflicts.isMissingTable(failure)) {
                return false;
            }
            throw failure;
        }
    }
}
