package io.locked.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a lock history independently of the lock's own state: no two critical sections of one
 * key overlap, and fencing tokens strictly increase in the order holders entered.
 */
public final class HistoryChecker {
    private HistoryChecker() {
    }

    /**
     * @param sections every critical section of one key, in any order
     * @return the violations found, empty when the history is correct
     */
    public static List<String> violations(List<CriticalSection> sections) {
        List<CriticalSection> byEntry = new ArrayList<>(sections);
        byEntry.sort(Comparator.comparingLong(CriticalSection::enterNanos));
        List<String> violations = new ArrayList<>();
        CriticalSection previous = null;
        for (CriticalSection section : byEntry) {
            if (section.exitNanos() < section.enterNanos()) {
                violations.add("exits before it enters: " + section);
            }
            if (previous != null) {
                if (section.enterNanos() < previous.exitNanos()) {
                    violations.add("overlap: " + previous + " still inside when " + section + " entered");
                }
                if (section.token() <= previous.token()) {
                    violations.add("token not increasing: " + previous + " then " + section);
                }
            }
            previous = section;
        }
        return violations;
    }
}
