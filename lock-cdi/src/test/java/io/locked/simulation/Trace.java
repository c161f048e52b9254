package io.locked.simulation;

import java.util.ArrayDeque;
import java.util.Deque;

/** What happened in a run, in virtual time: the last lines are printed with a failing seed. */
final class Trace {
    private static final int KEPT = Integer.getInteger("locked.simulation.trace-lines", 600);
    private final VirtualClock clock;
    private final Deque<String> lines = new ArrayDeque<>();
    private long written;

    Trace(VirtualClock clock) {
        this.clock = clock;
    }

    static String millis(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f ms", nanos / 1e6);
    }

    synchronized void add(String line) {
        written++;
        lines.addLast(String.format(java.util.Locale.ROOT, "%12.3f ms  %s", clock.nanoTime() / 1e6, line));
        if (lines.size() > KEPT) {
            lines.removeFirst();
        }
    }

    /** @return the last lines, oldest first, one per line */
    synchronized String tail() {
        return (written > KEPT ? "... " + (written - KEPT) + " earlier lines\n" : "") + String.join("\n", lines);
    }
}
