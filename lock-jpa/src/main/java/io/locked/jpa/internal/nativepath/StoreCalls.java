package io.locked.jpa.internal.nativepath;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.connection.PoolShortage;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.SQLException;
import java.util.function.Predicate;

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
     * while idle fails only the statement that next uses it, and that statement did not run. A second
     * try gets what is left of the call's bounds, and there is none after a timeout or once they are
     * spent ({@link CallBounds#forSecondTry}).
     */
    <T> T call(String key, String what, CallBounds bounds, LockTransaction.Work<T> work) {
        return call(key, what, bounds, work, LockConflicts::isSessionEnded);
    }

    /**
     * Runs a lease's take, and once more on another connection if the first one's session was gone in
     * any way ({@link LockConflicts#isSessionGone}): also where MariaDB and MySQL closed a killed
     * session's socket without a word (a forced release's end of a session the pool had lent again),
     * which looks like a reply lost after the statement ran. A take may run twice: it is in the name of
     * this acquisition's own owner id, so a first take that did run leaves a lease of ours, which the
     * second takes again (with a new token); it never makes two holders.
     */
    <T> T callTake(String key, CallBounds bounds, LockTransaction.Work<T> work) {
        return call(key, "taking the lease", bounds, work, LockConflicts::isSessionGone);
    }

    /**
     * @param again which failures let the work run once more on another connection; never for a
     *              hand-over, which settles a lost reply by reading the owner ({@link NativeLeases#handOverLease})
     */
    <T> T call(String key, String what, CallBounds bounds, LockTransaction.Work<T> work, Predicate<Throwable> again) {
        try {
            try {
                return LockTransaction.autocommit(connections, bounds, work);
            } catch (SQLException failure) {
                CallBounds left = again.test(failure) ? bounds.forSecondTry(failure) : null;
                if (left == null) {
                    throw failure;
                }
                return LockTransaction.autocommit(connections, left, work);
            }
        } catch (NoFreeConnection none) {
            shortage.noConnection(key, what, bounds.borrowWait());
            throw new LockStoreUnavailableException(key, what + " found no free connection within " + bounds.borrowWait(), none);
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, what + " failed", failure);
        }
    }
}
