package io.locked.jpa.internal.transaction;

import io.locked.spi.PessimisticHold;
import java.time.Duration;

/** A pessimistic hold whose session check and release also run outside the caller's transaction. */
public final class HoldOutsideCaller implements PessimisticHold {
    private final CallerTransaction caller;
    private final PessimisticHold hold;

    public HoldOutsideCaller(CallerTransaction caller, PessimisticHold hold) {
        this.caller = caller;
        this.hold = hold;
    }

    @Override
    public long token() {
        return hold.token();
    }

    @Override
    public boolean isAlive(Duration timeout) {
        return caller.outside(() -> hold.isAlive(timeout));
    }

    @Override
    public AnotherRow lockAnotherRow(String key, boolean shared) {
        return caller.outside(() -> hold.lockAnotherRow(key, shared));
    }

    @Override
    public PessimisticHold handOver(String owner, String holder) {
        PessimisticHold passed = caller.outside(() -> hold.handOver(owner, holder));
        return passed == null ? null : new HoldOutsideCaller(caller, passed);
    }

    @Override
    public boolean release() {
        return caller.outside(() -> hold.release());
    }

    @Override
    public boolean release(Duration holdAtLeast) {
        return caller.outside(() -> hold.release(holdAtLeast));
    }
}
