package io.locked.simulation;

/**
 * How often each statement meets a fault.
 *
 * @param lostReply      the statement ran, its reply is lost
 * @param late           the statement is held up past its client's timeout and lands later
 * @param lateByNanos    how much later, at most
 * @param slowReply      the statement or its reply takes long (else under a millisecond each way)
 * @param slowReplyNanos how long, at most, each way
 */
record FaultRates(double lostReply, double late, long lateByNanos, double slowReply, long slowReplyNanos) {
    /** What CI's seeds meet: about one statement in twelve has a fault. */
    static final FaultRates CI = new FaultRates(0.03, 0.05, 1_500_000_000L, 0.04, 800_000_000L);
    /** Three times as many statements held up: for the negative control of a late renewal, a rarer meeting of faults. */
    static final FaultRates LATE = new FaultRates(0.03, 0.5, 1_500_000_000L, 0.04, 800_000_000L);
}
