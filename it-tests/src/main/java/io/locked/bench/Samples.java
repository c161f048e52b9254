package io.locked.bench;

import java.util.Arrays;

/** Nanosecond samples of one thread; merged and sorted for percentiles after a run. */
final class Samples {
    private long[] values = new long[1 << 14];
    private int size;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    static long[] sortedUnion(Iterable<Samples> parts) {
        int total = 0;
        for (Samples part : parts) {
            total += part.size;
        }
        long[] all = new long[total];
        int at = 0;
        for (Samples part : parts) {
            System.arraycopy(part.values, 0, all, at, part.size);
            at += part.size;
        }
        Arrays.sort(all);
        return all;
    }

    /** @return the q-quantile of sorted values in microseconds, or NaN when there are none */
    static double percentileMicros(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1);
        return sorted[Math.max(0, index)] / 1000.0;
    }
}
