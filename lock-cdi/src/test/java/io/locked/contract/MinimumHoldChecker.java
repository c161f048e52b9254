package io.locked.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Checks the minimum hold's promise (docs/scheduled-jobs.md, "holdAtLeast"): after its release a key stays taken until
 * the hold has passed since the acquisition, on the database's clock, for every holder; a forced release ends
 * it. So once a binding hold ({@link MinimumHold#binding()}) was asked for at t0, no other section of its key
 * that enters after it (those before it held the key while it waited) enters before t0 + hold, unless a forced
 * release that ended that hold came first. Holds shorter than their
 * holder's work are covered too: the key is then held until the release anyway.
 *
 * <p>The check compares the database's clock with this JVM's {@link System#nanoTime()}: on one machine
 * both advance at the rate the kernel's clock does (NTP slews both alike). What it cannot see past is the
 * databases' timestamps, stored to the microsecond: a hold may end up to that much before t0 + hold.
 */
public final class MinimumHoldChecker {
    private static final long TIMESTAMP_RESOLUTION_NANOS = TimeUnit.MICROSECONDS.toNanos(1);

    private MinimumHoldChecker() {
    }

    /**
     * @param holds    every acquisition of the run that asked for a minimum hold
     * @param sections the sections of a key, every holder's
     * @param forced   the operator's forced releases
     * @return each section that entered within a binding hold that no forced release ended
     */
    public static List<String> violations(List<MinimumHold> holds, Function<String, List<CriticalSection>> sections,
                                   List<ForcedRelease> forced) {
        List<String> violations = new ArrayList<>();
        for (MinimumHold hold : holds) {
            if (!hold.binding()) {
                continue;
            }
            long ends = hold.endsNoEarlierThanNanos() - TIMESTAMP_RESOLUTION_NANOS;
            for (CriticalSection other : sections.apply(hold.key())) {
                // a lower token was drawn before the hold's acquisition, whenever its slow reply let its holder in
                boolean within = other.token() > hold.token() && other.enterNanos() - hold.enteredNanos() > 0
                        && other.enterNanos() - ends < 0;
                if (within && !endedBefore(hold, other.enterNanos(), forced)) {
                    violations.add("'" + hold.key() + "': " + other + " entered "
                            + TimeUnit.NANOSECONDS.toMillis(other.enterNanos() - hold.askedNanos()) + " ms after "
                            + hold + " asked for its hold, before the hold had passed");
                }
            }
        }
        return violations;
    }

    private static boolean endedBefore(MinimumHold hold, long enterNanos, List<ForcedRelease> forced) {
        return forced.stream().anyMatch(release -> (release.ended(hold.key(), hold.token())
                || release.key().equals(hold.key()) && release.outcomeUnknown() && release.endNanos() - hold.askedNanos() > 0)
                && release.startNanos() - enterNanos < 0);
    }
}
