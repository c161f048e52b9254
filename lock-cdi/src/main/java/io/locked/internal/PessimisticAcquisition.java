package io.locked.internal;

import io.locked.api.LockLostException;
import io.locked.api.LockMode;
import io.locked.spi.PessimisticHold;

/** Holds the key's row lock in the store's open transaction until the outermost hold ends. */
final class PessimisticAcquisition extends Acquisition {
    private final PessimisticHold hold;
    private volatile boolean valid = true;

    PessimisticAcquisition(String key, String owner, PessimisticHold hold, ThreadScope scope, KeyTurns.Turn turn) {
        super(key, owner, hold.token(), scope, turn);
        this.hold = hold;
    }

    @Override
    LockMode mode() {
        return LockMode.PESSIMISTIC;
    }

    @Override
    boolean isValid() {
        return valid;
    }

    @Override
    void releaseRow() {
        valid = false;
        if (!hold.release()) {
            throw new LockLostException(key, token, "its transaction had already ended (connection lost)");
        }
    }
}
