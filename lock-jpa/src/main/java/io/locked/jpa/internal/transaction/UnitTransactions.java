package io.locked.jpa.internal.transaction;

import jakarta.persistence.EntityManager;

/**
 * How the JPA path runs a transaction of the lock's own on its persistence unit: through the
 * {@code EntityManager}'s resource-local transaction, or, on a container-managed (JTA) unit, through
 * the {@code TransactionManager} ({@link JtaUnitTransactions}). Either way the caller's transaction
 * is never used: on a JTA unit the lock store sets it aside first ({@link CallerTransaction}).
 *
 * <p>A pessimistic hold keeps its transaction open while the locked method runs. On a JTA unit that
 * transaction is parked off the thread meanwhile ({@link #park()}), so that the method runs in the
 * caller's transaction again, and taken back ({@link Parked#resume()}) for the release.
 */
public interface UnitTransactions {
    /** Begins the lock's own transaction, with the manager taking part in it. */
    void begin(EntityManager manager);

    /** Commits the transaction begun on this thread. */
    void commit(EntityManager manager);

    /** Rolls back the transaction begun on this thread, if it is still open. */
    void rollbackIfActive(EntityManager manager);

    /**
     * Whether {@link #rollbackIfActive} fails where the database had already ended the transaction
     * (a lost session), as a commit would: a pessimistic release may then roll back instead of
     * committing and still tell a lost hold ({@link io.locked.jpa.LockTokens#CLOCK}).
     */
    default boolean rollbackTellsLostSession() {
        return true;
    }

    /** Begins the transaction of a pessimistic hold, which lasts as long as the locked method. */
    default void beginHold(EntityManager manager) {
        begin(manager);
    }

    /** Takes the open transaction off this thread until the hold ends; resource-local ones stay where they are. */
    default Parked park() {
        return Parked.NOTHING;
    }

    /** A transaction taken off its thread while a locked method runs. */
    @FunctionalInterface
    interface Parked {
        Parked NOTHING = () -> { };

        /** Puts the transaction back on the current thread, to end it or to use it for a check. */
        void resume();
    }

    /** A resource-local unit: the EntityManager's own transaction, which is never the caller's. */
    UnitTransactions RESOURCE_LOCAL = new UnitTransactions() {
        @Override
        public void begin(EntityManager manager) {
            manager.getTransaction().begin();
        }

        @Override
        public void commit(EntityManager manager) {
            manager.getTransaction().commit();
        }

        @Override
        public void rollbackIfActive(EntityManager manager) {
            if (manager.getTransaction().isActive()) {
                manager.getTransaction().rollback();
            }
        }
    };
}
