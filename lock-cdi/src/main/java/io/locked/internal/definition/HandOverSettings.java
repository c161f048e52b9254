package io.locked.internal.definition;

import io.locked.api.LockManagerBuilder;
import java.time.Duration;

/**
 * How long the CDI manager may pass a key's row lock from thread to thread before it lets other JVMs in,
 * {@code locked.hand-over.row-run} ({@link LockManagerBuilder#handOverRowsFor}).
 *
 * @param rowRun the longest run, zero (no hand-over) up to {@link LockManagerBuilder#MAX_ROW_HAND_OVER_RUN}
 */
public record HandOverSettings(Duration rowRun) {
    public static final String ROW_RUN = "locked.hand-over.row-run";

    public HandOverSettings {
        if (rowRun == null || rowRun.isNegative() || rowRun.compareTo(LockManagerBuilder.MAX_ROW_HAND_OVER_RUN) > 0) {
            throw new IllegalArgumentException("Invalid " + ROW_RUN + ": must be zero up to "
                    + Durations.text(LockManagerBuilder.MAX_ROW_HAND_OVER_RUN) + ", was " + Durations.text(rowRun));
        }
    }

    /**
     * @param config where the key is read
     * @throws IllegalArgumentException naming the key, for a value that is not a duration within the bounds
     */
    public static HandOverSettings from(SettingLookup config) {
        return new HandOverSettings(Durations.setting(config, ROW_RUN, LockManagerBuilder.DEFAULT_ROW_HAND_OVER_RUN));
    }
}
