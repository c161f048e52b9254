package io.locked.it.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockMode;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import io.locked.it.process.CounterFence;
import io.locked.it.process.CounterWrites;
import io.locked.it.process.WriteOutcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What one fault scenario's run recorded, checked independently of the lock's own state.
 *
 * <p>Lost updates are counted from the counter writes, not from the final value: a write whose
 * reply was lost in a fault may or may not have been applied, so the final value cannot be
 * trusted. Every write that was confirmed read a value and wrote that value plus one; under
 * exclusion no two confirmed writes read the same value, so each confirmed write beyond the first
 * that read a given value is one lost update.
 *
 * @param scenario          the fault
 * @param mode              the lock mode
 * @param fence             how the counter was written
 * @param episodes          how each injection of the fault ended
 * @param cycles            critical sections recorded
 * @param silent            overlaps and token inversions no holder involved was told about: the lock failed
 * @param signalled         those involving a holder the lock told it had lost the lock
 * @param lossesSignalled   critical sections whose holder was told it lost the lock
 * @param lossesSeenByIsValid of those, how many the holder could see in {@code isValid()} before
 *                          closing (the others learned it only from {@code close()})
 * @param lostUpdates       confirmed counter writes that overwrote another's increment
 * @param refusedWrites     counter writes the fence refused
 * @param failedWrites      counter writes that failed (database down, connection cut)
 * @param failedReleases    {@code close()} calls that threw something other than {@code LockLostException}
 * @param failures          refused or failed acquisitions, by kind
 * @param unclear           acquisitions that failed with something other than a LockException naming the key
 * @param worstOverrunMillis how long past its wait the longest acquisition ended (0 if none did), leaving
 *                          out waits of a suspended JVM's own threads
 * @param worstWait         the event of that acquisition, for diagnosis
 */
record FaultOutcome(String scenario, LockMode mode, CounterFence fence, List<Takeover> episodes, int cycles,
                    List<String> silent, List<String> signalled, int lossesSignalled, int lossesSeenByIsValid,
                    int lostUpdates, int refusedWrites, int failedWrites, int failedReleases,
                    Map<String, Integer> failures, List<String> unclear, long worstOverrunMillis, String worstWait) {

    static FaultOutcome of(String scenario, LockMode mode, CounterFence fence, List<Takeover> episodes,
                           List<CriticalSection> sections, List<CounterWrites.Write> writes, List<WorkerEvent> events,
                           Predicate<WorkerEvent> frozen, Duration maxWait) {
        HistoryChecker.Verdict verdict = HistoryChecker.check(sections);
        Map<Long, Integer> confirmedByRead = new HashMap<>();
        int refused = 0;
        int failed = 0;
        for (CounterWrites.Write write : writes) {
            switch (write.outcome()) {
                case OK -> confirmedByRead.merge(write.read(), 1, Integer::sum);
                case REFUSED -> refused++;
                case FAILED -> failed++;
            }
        }
        int lost = confirmedByRead.values().stream().mapToInt(count -> count - 1).sum();
        Map<String, Integer> failures = new HashMap<>();
        List<String> unclear = new ArrayList<>();
        int seenByIsValid = 0;
        int failedReleases = 0;
        long worstOverrun = 0;
        WorkerEvent worst = null;
        for (WorkerEvent event : events) {
            if (event.is("LOST") && event.fields()[3].equals("INVALID")) {
                seenByIsValid++;
            }
            if (event.is("CLOSE_FAILED")) {
                failedReleases++;
            }
            if (event.is("FAILED")) {
                failures.merge(event.failure(), 1, Integer::sum);
                if (event.failure().equals("UNCLEAR") || !event.keyNamed()) {
                    unclear.add(event.toString());
                }
            }
            if ((event.is("FAILED") || event.is("LATE")) && !frozen.test(event)) {
                long overrun = (event.attemptEnd() - event.attemptStart() - maxWait.toNanos()) / 1_000_000;
                if (overrun > worstOverrun) {
                    worstOverrun = overrun;
                    worst = event;
                }
            }
        }
        return new FaultOutcome(scenario, mode, fence, List.copyOf(episodes), sections.size(), verdict.silent(),
                verdict.signalled(), verdict.lossesSignalled(), seenByIsValid, lost, refused, failed, failedReleases,
                failures, unclear, worstOverrun,
                worst == null ? "" : worst.toString());
    }

    /** What must hold under every fault: no silent overlap, and every refused acquisition a LockException naming the key. */
    void assertLockSafe() {
        assertEquals(List.of(), silent, () -> "overlaps no holder was told about:\n" + this);
        assertEquals(List.of(), unclear, () -> "acquisitions that failed without a LockException naming the key:\n" + this);
    }

    /**
     * The negative control without a fence: a holder that kept writing after its lock was taken
     * over overwrote an increment, and the lock told it (a signalled overlap). If this fails, the
     * harness cannot see a late write, and its zeros prove nothing.
     */
    void assertLateWriteCaught() {
        assertTrue(takenOver() > 0, () -> "no injection ended in a takeover, so there was no late write to catch:\n" + this);
        assertTrue(lostUpdates > 0, () -> "the late write after a takeover lost no update: the harness cannot see it\n" + this);
        assertFalse(signalled.isEmpty(), () -> "the late holder's overlap was not recorded as signalled:\n" + this);
    }

    /** With a fence: the late writes were refused, so no update was lost. */
    void assertFenceHeld() {
        assertEquals(0, lostUpdates, () -> "lost updates behind a fence:\n" + this);
        if (takenOver() > 0) {
            assertTrue(refusedWrites > 0, () -> "takeovers happened but the fence refused no late write:\n" + this);
        }
    }

    /** Every injection ended this way. */
    void assertEveryInjection(Takeover expected) {
        assertTrue(episodes.stream().allMatch(e -> e == expected), () -> "expected every injection " + expected + ":\n" + this);
    }

    long takenOver() {
        return episodes.stream().filter(e -> e == Takeover.TAKEN_OVER).count();
    }

    /** @return one row of the faults table */
    String row() {
        return String.join(" | ", scenario, mode.name(), fence.name(),
                episodes.size() + " (" + takenOver() + " taken over)", String.valueOf(cycles),
                String.valueOf(silent.size()), String.valueOf(signalled.size()),
                lossesSignalled + " (" + lossesSeenByIsValid + " by isValid)",
                String.valueOf(lostUpdates), String.valueOf(refusedWrites), String.valueOf(failedWrites),
                String.valueOf(failedReleases),
                String.valueOf(failures.getOrDefault("NOT_ACQUIRED", 0)),
                String.valueOf(failures.getOrDefault("STORE_UNAVAILABLE", 0)),
                String.valueOf(unclear.size()), String.valueOf(worstOverrunMillis));
    }

    static String header() {
        return "scenario | mode | fence | faults injected | cycles | silent overlaps | signalled overlaps"
                + " | signalled losses | lost updates | refused writes | failed writes | failed releases | not acquired"
                + " | store unavailable | unclear failures | worst wait past maxWait (ms)";
    }

    @Override
    public String toString() {
        return row()
                + (worstWait.isEmpty() ? "" : "\nlongest wait: " + worstWait)
                + (silent.isEmpty() ? "" : "\nsilent: " + silent.subList(0, Math.min(5, silent.size())))
                + (unclear.isEmpty() ? "" : "\nunclear: " + unclear.subList(0, Math.min(5, unclear.size())));
    }
}
