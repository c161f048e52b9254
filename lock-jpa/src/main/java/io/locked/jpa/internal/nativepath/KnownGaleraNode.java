package io.locked.jpa.internal.nativepath;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.GaleraNode;
import java.util.Optional;

/**
 * The Galera node behind the unit, asked for once: at start-up, or by the first lock call if the
 * database was down then.
 */
final class KnownGaleraNode {
    private final LockConnections connections;
    private final boolean galeraSingleWriter;
    /**
     * The Galera node behind the unit, empty on any other server; null while not known (the
     * database was down at start-up: the first lock finds out).
     */
    private volatile Optional<GaleraNode> galera;

    /**
     * @param mayBeGalera        whether the database family may run on a Galera node at all
     * @param galeraSingleWriter whether every JVM's lock statements reach one Galera node
     */
    KnownGaleraNode(LockConnections connections, boolean mayBeGalera, boolean galeraSingleWriter) {
        this.connections = connections;
        this.galeraSingleWriter = galeraSingleWriter;
        this.galera = mayBeGalera ? null : Optional.empty();
    }

    /** Why the Galera node refuses the mode, empty where it does not or is not known yet. */
    Optional<String> refusal(LockMode mode) {
        Optional<GaleraNode> known = galera;
        // not known: the database was down at start-up, and the lock call itself asks (NativePessimisticLocks#lock)
        return known == null ? Optional.empty() : known.flatMap(node -> node.refusal(mode));
    }

    /**
     * @return the Galera node, or empty on any other server
     * @throws IllegalStateException if the database cannot be asked within the bounds
     */
    Optional<GaleraNode> node(CallBounds bounds) {
        Optional<GaleraNode> known = galera;
        if (known == null) {
            synchronized (this) {
                known = galera;
                if (known == null) {
                    known = Optional.ofNullable(GaleraNode.detect(connections, galeraSingleWriter, bounds));
                    galera = known;
                }
            }
        }
        return known;
    }

    /** The Galera node for a lock call, null on any other server. */
    GaleraNode forLockCall(String key, CallBounds bounds) {
        try {
            return node(bounds).orElse(null);
        } catch (IllegalStateException unreachable) {
            throw new LockStoreUnavailableException(key, unreachable.getMessage(), unreachable.getCause());
        }
    }
}
