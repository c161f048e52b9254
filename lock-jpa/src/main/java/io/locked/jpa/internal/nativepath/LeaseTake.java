package io.locked.jpa.internal.nativepath;

import io.locked.spi.Lease;

/** A take's answer: the lease if taken, else whether the key had no row at all. */
record LeaseTake(Lease lease, boolean noRow) {
    static final LeaseTake HELD = new LeaseTake(null, false);
    static final LeaseTake NO_ROW = new LeaseTake(null, true);
}
