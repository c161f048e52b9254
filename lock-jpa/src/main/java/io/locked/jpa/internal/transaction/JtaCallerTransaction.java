package io.locked.jpa.internal.transaction;

import jakarta.transaction.SystemException;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Suspends the thread's JTA transaction, if it has one, around the lock store's work. */
public final class JtaCallerTransaction implements CallerTransaction {
    private final TransactionManager transactions;

    JtaCallerTransaction(TransactionManager transactions) {
        this.transactions = transactions;
    }

    TransactionManager transactionManager() {
        return transactions;
    }

    @Override
    public <T> T outside(Supplier<T> work, Consumer<T> undo) {
        Transaction caller;
        try {
            caller = transactions.suspend(); // null where the thread has none
        } catch (SystemException | RuntimeException refused) {
            throw new IllegalStateException("Locked could not suspend the caller's transaction: " + refused, refused);
        }
        T answer;
        try {
            answer = work.get();
        } catch (RuntimeException | Error failure) {
            resumeAfterFailure(caller, failure);
            throw failure;
        }
        if (caller != null) {
            try {
                transactions.resume(caller);
            } catch (Exception refused) {
                if (answer != null) {
                    undo.accept(answer);
                }
                throw new IllegalStateException("Locked could not resume the caller's transaction: " + refused, refused);
            }
        }
        return answer;
    }

    private void resumeAfterFailure(Transaction caller, Throwable failure) {
        if (caller == null) {
            return;
        }
        try {
            transactions.resume(caller);
        } catch (Exception refused) {
            failure.addSuppressed(refused);
        }
    }
}
