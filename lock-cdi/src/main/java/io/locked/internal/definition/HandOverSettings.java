package io.locked.internal.definition;

import io.locked.api.LockManagerBuilder;
import java.time.Duration;

/**
 * How the CDI manager passes keys on between its own holders: how long it may pass a key's row lock from thread
 * to thread before it lets other JVMs in, {@code locked.hand-over.row-run} ({@link LockManagerBuilder#handOverRowsFor}),
 * and how long it keeps a released lease for its next take of the key, {@code locked.hand-over.lease-keep}
 * ({@link LockManagerBuilder#keepLeasesFor}).
 *
 * @param rowRun    the longest run, zero (no hand-over) up to {@link LockManagerBuilder#MAX_ROW_HAND_OVER_RUN}
 * @param leaseKeep the keep, zero (every release sent) up to {@link LockManagerBuilder#MAX_LEASE_KEEP}
 */
public record HandOverSettings(Duration rowRun, Duration leaseKeep) {
    public static final String ROW_RUN = "locked.hand-over.row-run";
    public static final String LEASE_KEEP = "locked.hand-over.lease-keep";

    public HandOverSettings {
        within(ROW_RUN, rowRun, LockManagerBuilder.MAX_ROW_HAND_OVER_RUN);
        within(LEASE_KEEP, leaseKeep, LockManagerBuilder.MAX_LEASE_KEEP);
    }

    private static void within(String key, Duration value, Duration most) {
        if (value == null || value.isNegative() || value.compareTo(most) > 0) {
            throw new IllegalArgumentException("Invalid " + key + ": must be zero up to " + Durations.text(most) + ", was "
                    + Durations.text(value));
        }
    }

    /**
     * @param config where the keys are read
     * @throws IllegalArgumentException naming the key, for a value that is not a duration within the bounds
     */
    public static HandOverSettings from(SettingLookup config) {
        return new HandOverSettings(Durations.setting(config, ROW_RUN, LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN),
                Durations.setting(config, LEASE_KEEP, Duration.ZERO));
    }
}
