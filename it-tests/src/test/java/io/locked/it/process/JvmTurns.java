package io.locked.it.process;

import io.locked.contract.CriticalSection;
import java.util.Comparator;
import java.util.List;

/**
 * How one JVM fared on a key shared with other JVMs, over a window in which its threads were
 * waiting for the key the whole time: how many critical sections it entered, and the longest
 * stretch in which it entered none (from the window's start, between two of its sections, or up to
 * the window's end).
 *
 * @param jvm             the JVM, as the table names it
 * @param acquisitions    its critical sections entered within the window
 * @param longestGapNanos the longest stretch within the window without a section of its own
 */
record JvmTurns(String jvm, int acquisitions, long longestGapNanos) {

    /**
     * @param jvm         the JVM, as the table names it
     * @param sections    that JVM's critical sections, in any order (they never overlap each other)
     * @param windowStart when every JVM's threads were waiting for the key
     * @param windowEnd   when the JVMs were told to stop
     */
    static JvmTurns of(String jvm, List<CriticalSection> sections, long windowStart, long windowEnd) {
        List<CriticalSection> byEntry = sections.stream().sorted(Comparator.comparingLong(CriticalSection::enterNanos)).toList();
        long idleSince = windowStart;
        long longest = 0;
        int acquisitions = 0;
        for (CriticalSection section : byEntry) {
            if (section.enterNanos() >= windowEnd) {
                break;
            }
            if (section.enterNanos() >= windowStart) {
                acquisitions++;
                longest = Math.max(longest, section.enterNanos() - idleSince);
            }
            idleSince = Math.max(idleSince, section.exitNanos());
        }
        longest = Math.max(longest, windowEnd - idleSince);
        return new JvmTurns(jvm, acquisitions, longest);
    }

    /** @return this JVM's acquisitions as a fraction of all JVMs' */
    double share(List<JvmTurns> all) {
        int total = all.stream().mapToInt(JvmTurns::acquisitions).sum();
        return total == 0 ? 0 : (double) acquisitions / total;
    }

    /** @return a Markdown table: JVM, acquisitions, share, longest gap (in ms and as a part of the window) */
    static String table(List<JvmTurns> all, long windowNanos) {
        StringBuilder table = new StringBuilder("| JVM | acquisitions | share | longest gap |\n| --- | ---: | ---: | ---: |\n");
        for (JvmTurns turns : all) {
            table.append(String.format("| %s | %d | %.1f %% | %d ms (%.1f %% of %.1f s) |%n", turns.jvm(), turns.acquisitions(),
                    100 * turns.share(all), turns.longestGapNanos() / 1_000_000, 100.0 * turns.longestGapNanos() / windowNanos,
                    windowNanos / 1e9));
        }
        return table.toString();
    }
}
