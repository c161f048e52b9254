package io.locked.it.process;

import io.locked.api.LockMode;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * How a worker's threads cycle on one key, from {@code name=value} arguments.
 *
 * @param database database to use (its URL may be overridden by the environment, see TestDatabase)
 * @param mode     lock mode, or null for the unlocked negative control
 * @param key      the key, and the counter's id
 * @param threads  threads of the worker
 * @param cycles   cycles per thread, or 0 to cycle until told to stop
 * @param maxWait  each acquisition's wait
 * @param lease    each optimistic acquisition's lease
 * @param fence    how the counter is written
 * @param history  file for the critical sections
 * @param writes   file for the counter writes, or null
 * @param galeraSingleWriter the repository's {@code galeraSingleWriter} setting
 * @param statements         the repository's lock path ({@code statements=}, default auto)
 * @param tokens             how the repository keeps pessimistic tokens ({@code tokens=}, default written)
 * @param goOnAfterFailures  with a fixed number of cycles, record a lost lock or a failed step and go on
 *                           rather than end the worker (for a negative control that expects them)
 * @param synchronousCommit  the repository's {@code postgresqlSynchronousCommit} ({@code synchronous-commit=}),
 *                           or null for none
 * @param permits            how many permits of the key each acquisition asks for ({@code permits=}), or 0
 *                           (the default) for the key's exclusive lock
 * @param writePercent       with the key's read/write lock ({@code write-percent=}), how many cycles in a
 *                           hundred write (at random), the others read; -1 (the default) for no read/write lock
 * @param leaseKeep          the manager's keep of a released lease ({@code lease-keep-millis=}), zero (the default)
 *                           for none
 */
record CycleOptions(TestDatabase database, LockMode mode, String key, int threads, int cycles, Duration maxWait,
                    Duration lease, CounterFence fence, Path history, Path writes, boolean galeraSingleWriter,
                    LockStatements statements, LockTokens tokens, boolean goOnAfterFailures, String synchronousCommit,
                    int permits, int writePercent, Duration leaseKeep) {

    /** Until stopped; every failure is recorded and the thread goes on. */
    boolean untilStopped() {
        return cycles == 0;
    }

    /** Whether each cycle reads or writes under the key's read/write lock. */
    boolean readWrite() {
        return writePercent >= 0;
    }

    /** Whether a failure ends the worker, rather than being recorded. */
    boolean failuresEndWorker() {
        return !untilStopped() && !goOnAfterFailures;
    }

    static CycleOptions parse(String[] arguments, int from) {
        Map<String, String> values = new HashMap<>();
        for (int i = from; i < arguments.length; i++) {
            String[] pair = arguments[i].split("=", 2);
            if (pair.length != 2) {
                throw new IllegalArgumentException("expected name=value, was " + arguments[i]);
            }
            values.put(pair[0], pair[1]);
        }
        String mode = values.getOrDefault("mode", "-");
        return new CycleOptions(TestDatabase.valueOf(values.get("database")),
                "-".equals(mode) ? null : LockMode.valueOf(mode),
                values.get("key"),
                Integer.parseInt(values.getOrDefault("threads", "1")),
                Integer.parseInt(values.getOrDefault("cycles", "0")),
                Duration.ofMillis(Long.parseLong(values.getOrDefault("wait-millis", "120000"))),
                Duration.ofMillis(Long.parseLong(values.getOrDefault("lease-millis", "30000"))),
                CounterFence.valueOf(values.getOrDefault("fence", "NONE")),
                Path.of(values.get("history")),
                values.containsKey("writes") ? Path.of(values.get("writes")) : null,
                Boolean.parseBoolean(values.getOrDefault("galera-single-writer", "false")),
                LockStatements.valueOf(values.getOrDefault("statements", "AUTO")),
                LockTokens.valueOf(values.getOrDefault("tokens", "WRITTEN")),
                Boolean.parseBoolean(values.getOrDefault("go-on-after-failures", "false")),
                values.get("synchronous-commit"),
                Integer.parseInt(values.getOrDefault("permits", "0")),
                Integer.parseInt(values.getOrDefault("write-percent", "-1")),
                Duration.ofMillis(Long.parseLong(values.getOrDefault("lease-keep-millis", "0"))));
    }
}
