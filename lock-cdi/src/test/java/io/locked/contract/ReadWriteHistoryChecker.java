package io.locked.contract;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a history of one key's read/write lock independently of the lock: no writer section
 * overlaps any other section, a reader or a writer; a writer's token is above the token of every
 * section entered before it, readers' included; no two readers of one slot from different processes
 * overlap (the readers of one process share its slot). (A reader's
 * token is a writer's before it, not always the last one's: a read of the writer row may see the row
 * as it was before the last writer's commit.) It also tells how many readers were inside at once at most, so that a test
 * can show readers really share the key.
 */
public final class ReadWriteHistoryChecker {
    private ReadWriteHistoryChecker() {
    }

    /**
     * @param writer  whether the section was a write
     * @param row     the row the holder held ({@code LockHandle.key()}: a reader slot, or the writer row)
     * @param section the critical section
     */
    public record Access(boolean writer, String row, CriticalSection section) {
    }

    /**
     * @param silent           violations no holder involved was told about: the lock is broken
     * @param signalled        violations involving a holder that was told it lost its hold
     * @param mostReadersAtOnce the most reader sections inside at one moment
     */
    public record Verdict(List<String> silent, List<String> signalled, int mostReadersAtOnce) {
    }

    /**
     * @param accesses every section of one key's read/write lock, in any order
     * @return the violations, silent and signalled apart, and the most readers inside at once
     */
    public static Verdict check(List<Access> accesses) {
        List<String> silent = new ArrayList<>();
        List<String> signalled = new ArrayList<>();
        Map<String, List<CriticalSection>> byReaderSlot = new LinkedHashMap<>();
        accesses.stream().filter(access -> !access.writer()).forEach(access ->
                byReaderSlot.computeIfAbsent(access.row(), slot -> new ArrayList<>()).add(access.section()));
        // a reader's token is the last writer's, shared by the readers after it: only overlaps count in a
        // slot, and only between processes, whose readers each share a slot of their own
        byReaderSlot.forEach((slot, sections) -> {
            HistoryChecker.Verdict verdict = HistoryChecker.check(heldByProcess(sections));
            verdict.silent().stream().filter(violation -> !violation.startsWith("token not increasing"))
                    .forEach(violation -> silent.add("reader slot " + printable(slot) + ": " + violation));
            verdict.signalled().stream().filter(violation -> !violation.startsWith("token not increasing"))
                    .forEach(violation -> signalled.add("reader slot " + printable(slot) + ": " + violation));
        });
        List<Access> byEntry = new ArrayList<>(accesses);
        byEntry.sort(Comparator.comparingLong(access -> access.section().enterNanos()));
        List<Access> inside = new ArrayList<>();
        long highestBefore = Long.MIN_VALUE;
        Access highest = null;
        int mostReaders = 0;
        for (Access access : byEntry) {
            CriticalSection section = access.section();
            inside.removeIf(earlier -> earlier.section().exitNanos() <= section.enterNanos());
            for (Access earlier : inside) {
                if (earlier.writer() || access.writer()) {
                    boolean told = earlier.section().lossSignalled() || section.lossSignalled();
                    (told ? signalled : silent).add("a writer overlaps: " + describe(earlier) + " still inside when "
                            + describe(access) + " entered");
                }
            }
            if (access.writer() && highest != null && section.token() <= highestBefore) {
                boolean told = highest.section().lossSignalled() || section.lossSignalled();
                (told ? signalled : silent).add("writer's token not above an earlier holder's: " + describe(highest)
                        + " then " + describe(access));
            }
            if (section.token() > highestBefore) {
                highestBefore = section.token();
                highest = access;
            }
            inside.add(access);
            mostReaders = Math.max(mostReaders, (int) inside.stream().filter(one -> !one.writer()).count());
        }
        return new Verdict(silent, signalled, mostReaders);
    }

    /**
     * @return each process's holds of one slot: its readers' sections merged where they overlap or
     *         touch, as one hold of the process ({@link CriticalSection#holder()}: process, then
     *         {@code /} and the thread)
     */
    private static List<CriticalSection> heldByProcess(List<CriticalSection> sections) {
        List<CriticalSection> sorted = new ArrayList<>(sections);
        sorted.sort(Comparator.comparingLong(CriticalSection::enterNanos));
        Map<String, CriticalSection> open = new LinkedHashMap<>();
        List<CriticalSection> holds = new ArrayList<>();
        for (CriticalSection section : sorted) {
            String process = section.holder().split("/", 2)[0];
            CriticalSection hold = open.get(process);
            if (hold != null && section.enterNanos() <= hold.exitNanos()) {
                open.put(process, new CriticalSection(process, hold.token(), hold.enterNanos(),
                        Math.max(hold.exitNanos(), section.exitNanos()), hold.lossSignalled() || section.lossSignalled()));
                continue;
            }
            if (hold != null) {
                holds.add(hold);
            }
            open.put(process, new CriticalSection(process, section.token(), section.enterNanos(), section.exitNanos(),
                    section.lossSignalled()));
        }
        holds.addAll(open.values());
        return holds;
    }

    private static String describe(Access access) {
        return (access.writer() ? "writer " : "reader ") + printable(access.row()) + " " + access.section();
    }

    private static String printable(String row) {
        return row.replace('\u001F', '#');
    }
}
