package io.locked.contract;

/**
 * One recorded critical section: who held the lock, with which token, when it entered and left,
 * and whether the lock told the holder it had lost the lock.
 *
 * <p>Enter and exit come from {@link System#nanoTime()}, compared across threads and across
 * processes. That holds only because on Linux it reads CLOCK_MONOTONIC, one clock for every
 * process of the machine (the multi-process tests check it when a worker starts); histories of
 * different machines cannot be compared this way.
 *
 * @param holder         who held it (process/thread), without spaces
 * @param token          the fencing token of the acquisition
 * @param enterNanos     when the holder was inside
 * @param exitNanos      when the holder was about to release
 * @param lossSignalled  whether the lock signalled the holder that it had lost the lock: its
 *                       handle was no longer valid when the holder left, or its close threw
 *                       {@code LockLostException}
 */
public record CriticalSection(String holder, long token, long enterNanos, long exitNanos, boolean lossSignalled) {
    private static final String LOST = "lost";

    /**
     * A section whose holder was not told of any loss.
     *
     * @param holder     who held it (process/thread), without spaces
     * @param token      the fencing token of the acquisition
     * @param enterNanos when the holder was inside
     * @param exitNanos  when the holder was about to release
     */
    public CriticalSection(String holder, long token, long enterNanos, long exitNanos) {
        this(holder, token, enterNanos, exitNanos, false);
    }

    /** @return one line: holder token enter exit, then {@code lost} if the loss was signalled */
    public String toLine() {
        return holder + " " + token + " " + enterNanos + " " + exitNanos + (lossSignalled ? " " + LOST : "");
    }

    /**
     * @param line as written by {@link #toLine()}
     * @return the section
     */
    public static CriticalSection parse(String line) {
        String[] parts = line.trim().split(" ");
        return new CriticalSection(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]),
                parts.length > 4 && LOST.equals(parts[4]));
    }
}
