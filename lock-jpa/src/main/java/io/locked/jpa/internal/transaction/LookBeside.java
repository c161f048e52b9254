package io.locked.jpa.internal.transaction;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.spi.PessimisticHold;

/**
 * What a pessimistic hold's look at a second row ({@link PessimisticHold#lockAnotherRow}) answers once a statement
 * of its transaction failed, on either path. MariaDB's snapshot conflict (1020) and a deadlock end the whole
 * transaction, and with it the key's row lock and its token, though the connection lives on: the hold counts as
 * lost from then on, and runs no statement that would start a new transaction beside no row lock.
 */
public final class LookBeside {
    private LookBeside() {
    }

    /**
     * @return {@code ABSENT} for a race lost to another transaction's write: the caller gives the hold back
     *         and tries again
     * @throws LockStoreUnavailableException for any other failure
     */
    public static PessimisticHold.AnotherRow afterFailure(String rowKey, String key, Exception failure) {
        if (LockConflicts.isWriteConflict(failure)) {
            return PessimisticHold.AnotherRow.ABSENT;
        }
        throw new LockStoreUnavailableException(rowKey, "locking it beside '" + key + "' failed, and the"
                + " transaction holding '" + key + "' may have ended with it", failure);
    }

    /** @return the refusal of a look on a hold whose transaction a failed statement ended */
    public static LockStoreUnavailableException transactionEnded(String rowKey, String key) {
        return new LockStoreUnavailableException(rowKey, "the transaction holding '" + key + "' has ended", null);
    }
}
