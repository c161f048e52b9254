package io.locked.jpa.internal.transaction;

import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The caller's JTA transaction, set aside while the lock store works, so that the lock's statements
 * never join it: the lock is not undone by the caller's rollback, and the caller's transaction is
 * never committed, rolled back or marked rollback-only by the lock. Where no {@code TransactionManager}
 * is known there is nothing to set aside ({@link #NONE}).
 */
public interface CallerTransaction {
    /** No transaction manager: the work runs as it is. */
    CallerTransaction NONE = new CallerTransaction() {
        @Override
        public <T> T outside(Supplier<T> work, Consumer<T> undo) {
            return work.get();
        }
    };

    /**
     * Runs work with the thread's transaction suspended, and resumes it after.
     *
     * @param work what the lock store does
     * @param undo what gives back the work's answer (a hold, a lease) when the caller's transaction
     *             cannot be resumed, so that nothing stays held for a caller that gets an exception
     * @return the work's answer
     */
    <T> T outside(Supplier<T> work, Consumer<T> undo);

    default <T> T outside(Supplier<T> work) {
        return outside(work, answer -> { });
    }

    default void outside(Runnable work) {
        outside(() -> {
            work.run();
            return null;
        });
    }
}
