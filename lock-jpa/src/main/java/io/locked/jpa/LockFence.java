package io.locked.jpa;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import io.locked.jpa.internal.fence.JpaFenceTransaction;
import io.locked.jpa.internal.transaction.FenceTransaction;
import io.locked.spi.LockRows;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The fenced write: makes the caller's own database transaction commit only if no acquisition of
 * the same key with a higher fencing token has written through the fence. A holder that was paused
 * (a GC pause, {@code SIGSTOP}) or cut off from the database past its lease can still run on after
 * its lock was taken over; no lock can stop that, but the fence stops its late write.
 *
 * <h2>Rule: call it first in the transaction, before reading the data it protects</h2>
 * <pre>{@code
 * try (LockHandle lock = locks.acquire(LockRequest.of("stock:" + sku))) {
 *     connection.setAutoCommit(false);
 *     try {
 *         LockFence.check(connection, lock);           // first: before reading the stock
 *         int left = readQuantity(connection, sku);
 *         writeQuantity(connection, sku, left - 1);
 *         connection.commit();
 *     } catch (SQLException | RuntimeException failure) {
 *         connection.rollback();                      // a LockLostException lands here too
 *         throw failure;
 *     }
 * }
 * }</pre>
 * With JPA, the same inside the EntityManager's transaction: {@code LockFence.check(entityManager, lock)},
 * then {@code find}, change, commit.
 *
 * <h2>What it guarantees</h2>
 * Each call writes the key's row of the table {@code locked_fence} (the key and the highest token
 * that has written through the fence) in the caller's transaction: it raises the row to the
 * handle's token unless a higher token is there, and refuses the handle if one is. The row stays
 * locked until the caller's transaction ends, so the fenced transactions of one key run one after
 * the other:
 * <ul>
 * <li>a holder whose successor (a higher token) has committed a fenced transaction is refused with
 *     {@link LockLostException}, and its transaction must roll back;</li>
 * <li>a successor whose fence meets a predecessor's still open fenced transaction waits until
 *     it ends, and then reads what it committed: no lost update;</li>
 * <li>a holder may fence any number of transactions with the same handle; a lower token waiting
 *     behind a higher token's open transaction is refused once that one commits.</li>
 * </ul>
 * Only fenced transactions are protected: every transaction that writes the protected data must
 * fence with the key's current handle. The fence orders transactions from the moment it runs, so
 * data read before it in the same transaction (or, on MariaDB's REPEATABLE READ, a snapshot taken
 * by an earlier read) may be older than what a predecessor is about to commit: hence the rule.
 *
 * <h2>Failures</h2>
 * A refusal throws {@link LockLostException} naming the key; the transaction is left open for the
 * caller to roll back (an unchecked exception rolls back a {@code @Transactional} method; a
 * resource-local EntityManager transaction is also marked rollback-only). A handle that already
 * knows it lost its lock ({@link LockHandle#isValid()} false) is refused at once, without a
 * statement. A database failure, including a missing {@code locked_fence} table and a lock wait
 * or serialization failure, throws {@link LockStoreUnavailableException}; no JDBC or JPA exception
 * leaks out. On PostgreSQL under REPEATABLE READ or SERIALIZABLE, a fence that waited behind another
 * fenced commit fails that way: retry the transaction.
 *
 * <h2>Cost and setup</h2>
 * One statement in the common case (MariaDB {@code INSERT ... ON DUPLICATE KEY UPDATE ... RETURNING},
 * PostgreSQL {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING}, H2 {@code MERGE}); two on MySQL
 * and on MariaDB through an EntityManager; plus any wait behind another open fenced transaction of
 * the key. The database is told by the connection's metadata or the persistence unit's settings,
 * once per product or unit; other databases get standard {@code UPDATE} and {@code INSERT}. The
 * table must live in the database of the caller's transaction:
 * {@link JpaLockRepository#createTableIfMissing()} creates it beside the lock table, and the
 * schema scripts under {@code META-INF/locked/} hold its DDL. Its rows (one per fenced key) are
 * never deleted: a deleted row would admit a late writer again.
 */
public final class LockFence {
    private LockFence() {
    }

    /**
     * Fences the transaction open on this connection with the handle's token; call it first in
     * the transaction, before reading the data it protects.
     *
     * @param connection the caller's connection, with autocommit off and its transaction open; the
     *                   fence's statement runs in that transaction, which the caller commits or
     *                   rolls back
     * @param handle     the lock held for the data, by this code
     * @throws IllegalArgumentException       if an argument is null
     * @throws IllegalStateException          if the connection is in autocommit mode: each statement
     *                                        would be its own transaction, and the fence would
     *                                        protect nothing
     * @throws LockLostException              if the handle is no longer valid, or a higher token of
     *                                        the key has written through the fence: roll back
     * @throws LockStoreUnavailableException  if the fence could not be written
     */
    public static void check(Connection connection, LockHandle handle) {
        requireHandle(handle);
        if (connection == null) {
            throw new IllegalArgumentException("LockFence.check needs the Connection whose transaction it fences, was null");
        }
        refuseIfLost(handle);
        try {
            if (connection.getAutoCommit()) {
                throw new IllegalStateException("LockFence.check on '" + handle.key() + "' needs an open transaction,"
                        + " but the connection is in autocommit mode: the fence would commit on its own and protect"
                        + " nothing. Call connection.setAutoCommit(false) first, fence, write, then commit");
            }
            pass(new JdbcFenceTransaction(connection), FenceDetection.of(connection), handle);
        } catch (SQLException failure) {
            throw unavailable(handle, failure);
        }
    }

    /**
     * Fences the transaction of this EntityManager with the handle's token; call it first in the
     * transaction, before reading the data it protects. The fence runs as native statements of
     * the EntityManager, so it joins its transaction on any provider, resource-local or JTA.
     *
     * @param entityManager the caller's EntityManager, joined to an active transaction
     * @param handle        the lock held for the data, by this code
     * @throws IllegalArgumentException       if an argument is null
     * @throws IllegalStateException          if the EntityManager is not joined to an active transaction
     * @throws LockLostException              if the handle is no longer valid, or a higher token of
     *                                        the key has written through the fence: roll back (a
     *                                        resource-local transaction is marked rollback-only)
     * @throws LockStoreUnavailableException  if the fence could not be written
     */
    public static void check(EntityManager entityManager, LockHandle handle) {
        requireHandle(handle);
        if (entityManager == null) {
            throw new IllegalArgumentException("LockFence.check needs the EntityManager whose transaction it fences, was null");
        }
        try {
            refuseIfLost(handle);
            if (!entityManager.isJoinedToTransaction()) {
                throw new IllegalStateException("LockFence.check on '" + handle.key() + "' needs an active transaction"
                        + " joined by this EntityManager: without one the fence would protect nothing. Begin the"
                        + " transaction (or call it inside a @Transactional method) first, fence, write, then commit");
            }
            pass(new JpaFenceTransaction(entityManager), FenceDetection.of(entityManager.getEntityManagerFactory()), handle);
        } catch (LockLostException refused) {
            markRollbackOnly(entityManager);
            throw refused;
        } catch (SQLException | PersistenceException failure) {
            throw unavailable(handle, failure);
        }
    }

    /** The fence itself, on statements of any kind; package-private so tests can pick the statements. */
    static void pass(FenceTransaction transaction, FenceStatements statements, LockHandle handle) throws SQLException {
        // a permit's and a read/write lock's holders count their tokens per slot: the fence row is the slot's
        String row = LockRows.of(handle.key(), handle.kind(), handle.slot());
        long fenced = statements.raise(transaction, row, handle.token());
        if (fenced > handle.token()) {
            throw new LockLostException(handle.key(), handle.token(), "a later holder (token " + fenced
                    + ") has written through the fence; roll back this transaction");
        }
    }

    private static void requireHandle(LockHandle handle) {
        if (handle == null) {
            throw new IllegalArgumentException("LockFence.check needs the LockHandle of the lock that protects the data,"
                    + " was null");
        }
    }

    private static void refuseIfLost(LockHandle handle) {
        if (!handle.isValid()) {
            throw new LockLostException(handle.key(), handle.token(), "the handle is no longer valid, so it may not"
                    + " write through the fence; roll back this transaction");
        }
    }

    // A caller that catches the refusal and commits anyway must not get its writes through.
    // Only a resource-local transaction can be marked here: a JTA EntityManager refuses getTransaction().
    private static void markRollbackOnly(EntityManager entityManager) {
        try {
            if (entityManager.isJoinedToTransaction()) {
                entityManager.getTransaction().setRollbackOnly();
            }
        } catch (IllegalStateException | PersistenceException notResourceLocal) {
            // the caller's unchecked exception handling rolls it back
        }
    }

    private static LockStoreUnavailableException unavailable(LockHandle handle, Exception failure) {
        return new LockStoreUnavailableException(handle.key(), "writing through the fence (table "
                + FenceStatements.TABLE + ") failed; roll back this transaction", failure);
    }
}
