package io.locked.jpa.internal.nativepath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.SQLException;

/**
 * Runs one autocommit call of the native path on a pooled connection (a lease's statements, the
 * readiness read), and turns its failure into a {@link LockStoreUnavailableException} naming the key
 * and the step, warning of the pool where no connection came.
 */
final class StoreCalls {
    private final LockConnections connections;
    private final PoolShortage shortage;

    StoreCalls(LockConnections connections, PoolShortage shortage) {
        this.connections = connections;
        this.shortage = shortage;
    }

    /**
     * Runs the work in autocommit, and once more on another connection if the server said it had
     * ended the first one's session ({@link LockConflicts#isSessionEnded}): a pooled session ended
     * while idle fails only the statement that next uses it, and that statement did not run.
     */
    <T> T call(String key, String what, CallBounds bounds, LockTransaction.Work<T> work) {
        return call(key, what, bounds, work, true);
    }

    /**
     * @param again whether the work may run once more after an ended session; not a hand-over, which
     *              settles a lost reply by reading the owner ({@link NativeLeases#handOverLease})
     */
    <T> T call(String key, String what, CallBounds bounds, LockTransaction.Work<T> work, boolean again) {
        try {
            try {
                return LockTransaction.autocommit(connections, bounds, work);
            } catch (SQLException failure) {
                if (!again || !LockConflicts.isSessionEnded(failure)) {
                    throw failure;
                }
                return LockTransaction.autocommit(connections, bounds, work);
            }
        } catch (NoFreeConnection none) {
            shortage.noConnection(key, what, bounds.borrowWait());
            throw new LockStoreUnavailableException(key, what + " found no free connection within " + bounds.borrowWait(), none);
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, what + " failed", failure);
        }
    }
}
