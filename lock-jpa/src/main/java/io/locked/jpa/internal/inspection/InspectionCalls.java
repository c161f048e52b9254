package io.locked.jpa.internal.inspection;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.SQLException;
import java.time.Duration;

/**
 * Runs one autocommit step of an inspection or a forced release, bounded, and turns its failure into
 * a {@link LockStoreUnavailableException} naming the key and the step.
 */
final class InspectionCalls {
    /** How long reading a page, or each step of a forced release, may take. */
    static final Duration BOUND = Duration.ofSeconds(10);
    private final LockConnections connections;

    InspectionCalls(LockConnections connections) {
        this.connections = connections;
    }

    <T> T call(String key, String what, LockTransaction.Work<T> work) {
        return call(key, what, work, null);
    }

    /** @param hint a likely reason for a failure, told with it; null if none */
    <T> T call(String key, String what, LockTransaction.Work<T> work, String hint) {
        try {
            return LockTransaction.autocommit(connections, CallBounds.within(BOUND), work);
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, what + " failed" + (hint == null ? "" : " (" + hint + ")"), failure);
        }
    }
}
