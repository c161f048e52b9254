package io.locked.internal.exclusive;

import io.locked.internal.base.SeededBug;

/** The bugs the model checking ({@code DrainModelTest}) and the simulation ({@code SimulationTest}) must find. */
public enum ExclusiveSeededBug implements SeededBug {
    /** Once closed, a holder's re-entry is not looked for, so it is refused. */
    REFUSES_REENTRY,
    /** A hold tracked for the drain is not looked at again, so it is granted past the drain. */
    GRANTED_PAST_THE_DRAIN,
    /** A pessimistic release that finds its transaction gone is not told to the holder. */
    LOSS_AT_RELEASE_UNTOLD,
    /** An optimistic release hands its lease to a waiting thread of its JVM while its minimum hold lasts. */
    HAND_OVER_DURING_A_MINIMUM_HOLD,
    /** A take that finds its key's lease kept after a release takes it as it is: no statement, so no new token. */
    KEPT_LEASE_REUSED
}
