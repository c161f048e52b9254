package io.locked.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Checks a lock history independently of the lock's own state: no two critical sections of one
 * key overlap, and fencing tokens strictly increase in the order holders entered.
 *
 * <p>Under faults (a paused or cut-off holder) a lock cannot prevent every overlap: the old holder
 * may still be running when its lease is taken over. What it must do is tell that holder. So a
 * violation involving a section whose holder was told it lost the lock is <em>signalled</em>; one
 * where neither holder was told is <em>silent</em>, and only silent ones break the lock's contract.
 */
public final class HistoryChecker {
    private HistoryChecker() {
    }

    /**
     * What the checker found, split by whether the lock told a holder involved.
     *
     * @param silent          violations no holder involved was told about: the lock is broken
     * @param signalled       violations involving a holder that was told it lost the lock
     * @param lossesSignalled sections whose holder was told it lost the lock, overlapping or not
     */
    public record Verdict(List<String> silent, List<String> signalled, int lossesSignalled) {
    }

    /**
     * @param sections every critical section of one key, in any order
     * @return every violation found, silent or signalled; empty when the history is correct
     */
    public static List<String> violations(List<CriticalSection> sections) {
        Verdict verdict = check(sections);
        List<String> all = new ArrayList<>(verdict.silent());
        all.addAll(verdict.signalled());
        return all;
    }

    /**
     * @param sections every critical section of one key, in any order
     * @return the violations, silent and signalled apart
     */
    public static Verdict check(List<CriticalSection> sections) {
        List<CriticalSection> byEntry = new ArrayList<>(sections);
        byEntry.sort(Comparator.comparingLong(CriticalSection::enterNanos));
        List<String> silent = new ArrayList<>();
        List<String> signalled = new ArrayList<>();
        // every section entered so far that may still be inside: a long (paused) one can overlap
        // many later ones, not only the next
        List<CriticalSection> inside = new ArrayList<>();
        CriticalSection previous = null;
        int losses = 0;
        for (CriticalSection section : byEntry) {
            if (section.lossSignalled()) {
                losses++;
            }
            if (section.exitNanos() < section.enterNanos()) {
                (section.lossSignalled() ? signalled : silent).add("exits before it enters: " + section);
            }
            inside.removeIf(earlier -> earlier.exitNanos() <= section.enterNanos());
            for (CriticalSection earlier : inside) {
                classify(earlier, section, silent, signalled)
                        .add("overlap: " + earlier + " still inside when " + section + " entered");
            }
            if (previous != null && section.token() <= previous.token()) {
                classify(previous, section, silent, signalled).add("token not increasing: " + previous + " then " + section);
            }
            inside.add(section);
            previous = section;
        }
        return new Verdict(silent, signalled, losses);
    }

    private static List<String> classify(CriticalSection first, CriticalSection second, List<String> silent,
                                         List<String> signalled) {
        return first.lossSignalled() || second.lossSignalled() ? signalled : silent;
    }
}
