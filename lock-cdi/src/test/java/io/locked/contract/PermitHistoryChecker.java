package io.locked.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a history of permits of one key independently of the lock: each slot is an exclusive lock
 * of its own (no overlap, tokens increasing; {@link HistoryChecker}), and never more holders inside
 * at once than there are permits. It also tells how many were inside at once at most, so that a test
 * can show permits really run side by side rather than one at a time.
 */
public final class PermitHistoryChecker {
    private PermitHistoryChecker() {
    }

    /**
     * @param slot    the slot the holder held, as {@link Places#of(io.locked.api.LockHandle)} names it
     * @param section the critical section
     */
    public record PermitSection(String slot, CriticalSection section) {
    }

    /**
     * @param silent           violations no holder involved was told about: the lock is broken
     * @param signalled        violations involving a holder that was told it lost its permit
     * @param mostInsideAtOnce the most sections inside at one moment
     */
    public record Verdict(List<String> silent, List<String> signalled, int mostInsideAtOnce) {
    }

    /**
     * @param sections every section of one key's permits, in any order
     * @param permits  how many holders may be inside at once
     * @return the violations, silent and signalled apart, and the most inside at once
     */
    public static Verdict check(List<PermitSection> sections, int permits) {
        List<String> silent = new ArrayList<>();
        List<String> signalled = new ArrayList<>();
        Map<String, List<CriticalSection>> bySlot = new LinkedHashMap<>();
        sections.forEach(permit -> bySlot.computeIfAbsent(permit.slot(), slot -> new ArrayList<>()).add(permit.section()));
        bySlot.forEach((slot, ofSlot) -> {
            HistoryChecker.Verdict verdict = HistoryChecker.check(ofSlot);
            verdict.silent().forEach(violation -> silent.add("slot " + printable(slot) + ": " + violation));
            verdict.signalled().forEach(violation -> signalled.add("slot " + printable(slot) + ": " + violation));
        });
        List<PermitSection> byEntry = new ArrayList<>(sections);
        byEntry.sort(Comparator.comparingLong(permit -> permit.section().enterNanos()));
        List<PermitSection> inside = new ArrayList<>();
        int most = 0;
        for (PermitSection permit : byEntry) {
            inside.removeIf(earlier -> earlier.section().exitNanos() <= permit.section().enterNanos());
            inside.add(permit);
            most = Math.max(most, inside.size());
            if (inside.size() > permits) {
                boolean told = inside.stream().anyMatch(one -> one.section().lossSignalled());
                (told ? signalled : silent).add(inside.size() + " holders inside at once, over " + permits + " permits: "
                        + inside.stream().map(one -> printable(one.slot()) + " " + one.section()).toList());
            }
        }
        return new Verdict(silent, signalled, most);
    }

    private static String printable(String slot) {
        return slot.replace('\u001F', '#');
    }
}
