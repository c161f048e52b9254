package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Quarkus {@code @Scheduled} jobs under {@code @Locked} on two instances of the packaged application,
 * the second one's clock 3.5 s ahead (libfaketime). Quarkus' scheduler checks its triggers on the
 * whole seconds of its instance's clock, so the two instances' triggers fire half a second apart, or
 * a second and a half (with {@code every = "2s"}, depending on when each started). The jobs record
 * each run with the database's clock ({@link JobRuns}).
 *
 * <p>The non-blocking form ({@code held-uni}, a {@code Uni} run on the event loop) is held the same way, and
 * no event loop of either instance is reported blocked.
 *
 * <p>With {@code holdAtLeast = "1500ms"} no two runs of a job are closer than that hold: with
 * triggers every 2 s on each instance, one run per period. Without it (the negative control), the
 * job runs at both instances' triggers: runs a second apart or closer.
 */
class ScheduledJobsOnQuarkusIT {
    private static final long HOLD_MICROS = 1_500_000;
    /** Runs are stamped inside the job, a few milliseconds after the lock was granted: allow for that. */
    private static final long STAMP_SLACK_MICROS = 200_000;
    private static final int RUNS = 8;
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private final String run = UUID.randomUUID().toString();

    @Test
    void aJobUnderAMinimumHoldRunsOncePerPeriodAcrossInstancesWhoseClocksDiffer() throws Exception {
        String[] schedule = {"-Dlocked-app.tick.cron=*/2 * * * * ?", "-Dlocked-app.tick.every=2s",
                "-Dlocked-app.tick.run=" + run, EventLoopCheck.STRICT};
        long bothUp;
        try (QuarkusInstance a = new QuarkusInstance("tick-a");
             QuarkusInstance b = new QuarkusInstance("tick-b")) {
            b.setClockAhead(Duration.ofMillis(3500));
            a.start(schedule);
            b.start(schedule);
            bothUp = JobRunTable.databaseNowMicros();
            awaitRuns(bothUp, "held-cron", "held-every", "held-uni");
            EventLoopCheck.assertNeverBlocked(a, b);
        }
        for (String job : List.of("held-cron", "held-every", "held-uni")) {
            List<Long> runs = runsSince(job, bothUp);
            long closest = closestGap(runs);
            report(job, runs);
            assertTrue(closest >= HOLD_MICROS - STAMP_SLACK_MICROS, job + ": two runs " + closest / 1000
                    + " ms apart, under its minimum hold of 1.5 s: " + runs);
        }
        for (String job : List.of("bare-cron", "bare-every")) {
            List<Long> runs = runsSince(job, bothUp);
            long closest = closestGap(runs);
            report(job, runs);
            assertTrue(closest < 1_200_000, job + ": without a hold, the two instances' triggers should both have run"
                    + " it, but no two runs were closer than " + closest / 1000 + " ms: " + runs);
        }
    }

    private void awaitRuns(long since, String... jobs) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            boolean enough = true;
            for (String job : jobs) {
                enough &= runsSince(job, since).size() >= RUNS;
            }
            if (enough) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within " + PATIENCE + " the jobs " + List.of(jobs) + " did not run " + RUNS
                        + " times each");
            }
            Thread.sleep(200); // polling the database for the scheduler's progress
        }
    }

    private void report(String job, List<Long> runs) {
        double periods = (runs.get(runs.size() - 1) - runs.get(0)) / 2_000_000.0 + 1;
        System.out.printf("[scheduler] quarkus %s: %d runs in %.1f periods of 2 s, closest two %d ms apart%n",
                job, runs.size(), periods, closestGap(runs) / 1000);
    }

    private static long closestGap(List<Long> runs) {
        long closest = Long.MAX_VALUE;
        for (int i = 1; i < runs.size(); i++) {
            closest = Math.min(closest, runs.get(i) - runs.get(i - 1));
        }
        return closest;
    }

    private List<Long> runsSince(String job, long sinceMicros) throws SQLException {
        try (Connection connection = JobRunTable.connect();
             PreparedStatement read = connection.prepareStatement("SELECT " + JobRunTable.MICROS
                     + " FROM job_run WHERE job = ? AND " + JobRunTable.MICROS + " > ? ORDER BY ran_at")) {
            read.setString(1, run + "/" + job);
            read.setLong(2, sinceMicros);
            List<Long> runs = new ArrayList<>();
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    runs.add(rows.getLong(1));
                }
            }
            return runs;
        }
    }

}
