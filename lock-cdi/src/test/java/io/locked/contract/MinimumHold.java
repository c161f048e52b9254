package io.locked.contract;

/**
 * One acquisition with a minimum hold ({@code holdAtLeast}), as a randomized run saw it from outside.
 *
 * @param key          the key
 * @param holder       the holder, as in its {@link CriticalSection}
 * @param token        its token
 * @param askedNanos   when its acquire call began: the hold counts from its acquisition on the database's
 *                     clock, which is no earlier than that
 * @param enteredNanos when its holder was inside: every section of its key that enters later comes after it
 * @param holdNanos    the hold asked for
 * @param closedNanos  when its release returned
 * @param lossReason   what its holder was told when it lost the lock, or null if it was not told
 * @param leaseNanos   its lease as its holder counts it ({@code OPTIMISTIC}), else 0
 * @param delayNanos   its lock-delay, which the store keeps past that lease, else 0
 */
public record MinimumHold(String key, String holder, long token, long askedNanos, long enteredNanos, long holdNanos, long closedNanos,
                   String lossReason, long leaseNanos, long delayNanos) {
    /** What an optimistic holder is told when its own count of its lease ran out before a renewal confirmed it. */
    static final String COUNT_RAN_OUT = "before a renewal confirmed it";

    /**
     * Whether the hold was the holder's to leave at its release, so that it binds: its holder was not told of a
     * loss; or it was told only that its own count ran out while the store still had its lease, which the
     * lock-delay kept at least {@code lease + delay} past the acquire call, and its release came before that.
     * A holder told of any other loss may have had its row taken or freed: the store may have nothing to keep.
     */
    public boolean binding() {
        if (lossReason == null) {
            return true;
        }
        return delayNanos > 0 && lossReason.contains(COUNT_RAN_OUT)
                && closedNanos - (askedNanos + leaseNanos + delayNanos) < 0;
    }

    /** @return when the hold ends at the earliest, on this JVM's monotonic clock */
    long endsNoEarlierThanNanos() {
        return askedNanos + holdNanos;
    }

    @Override
    public String toString() {
        return holder + " token " + token + " asked at " + askedNanos + " hold " + holdNanos / 1_000_000 + " ms, closed at "
                + closedNanos + (leaseNanos > 0 ? ", lease " + leaseNanos / 1_000_000 + " ms" : "")
                + (delayNanos > 0 ? " + delay " + delayNanos / 1_000_000 + " ms" : "")
                + (lossReason == null ? "" : ", told: " + lossReason);
    }
}
