package io.locked.contract;

/**
 * One recorded critical section: who held the lock, with which token, and when it entered and
 * left on a monotonic source shared by every recorder (System.nanoTime is CLOCK_MONOTONIC on
 * Linux, one clock for every process of the machine).
 *
 * @param holder     who held it (process/thread)
 * @param token      the fencing token of the acquisition
 * @param enterNanos when the holder was inside
 * @param exitNanos  when the holder was about to release
 */
public record CriticalSection(String holder, long token, long enterNanos, long exitNanos) {

    /** @return one line: holder token enter exit */
    public String toLine() {
        return holder + " " + token + " " + enterNanos + " " + exitNanos;
    }

    /**
     * @param line as written by {@link #toLine()}
     * @return the section
     */
    public static CriticalSection parse(String line) {
        String[] parts = line.trim().split(" ");
        return new CriticalSection(parts[0], Long.parseLong(parts[1]), Long.parseLong(parts[2]), Long.parseLong(parts[3]));
    }
}
