package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A rolling deploy: two instances of the packaged application run a 3 s job every 2 s under a 40 s
 * lease ({@code TickJobs#handover}); the one running it is stopped (SIGTERM, as a container
 * runtime stops it) in the middle of a run. The manager drains at shutdown: the run finishes, its
 * release frees the key, and the other instance runs the job at its next trigger, not a lease later.
 * Neither log has an ERROR line.
 */
class ShutdownHandOverOnQuarkusIT {
    private static final long LEASE_MICROS = 40_000_000;
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private final String run = UUID.randomUUID().toString();

    @Test
    void theOtherInstanceRunsTheNextTickWhenTheHolderIsStoppedMidRun() throws Exception {
        String[] schedule = {"-Dlocked-app.handover.every=2s", "-Dlocked-app.tick.run=" + run};
        try (QuarkusInstance a = new QuarkusInstance("handover-a"); QuarkusInstance b = new QuarkusInstance("handover-b")) {
            a.start(schedule);
            b.start(schedule);
            long bothUp = JobRunTable.databaseNowMicros();
            Start running = awaitStart(bothUp, null);
            QuarkusInstance holder = running.instance().equals("handover-a") ? a : b;
            QuarkusInstance other = holder == a ? b : a;
            long stoppedAt = JobRunTable.databaseNowMicros();
            holder.close(); // SIGTERM, and wait for the process to end
            long exitedAt = JobRunTable.databaseNowMicros();
            Start next = awaitStart(running.atMicros(), holder.name());
            long takeover = next.atMicros() - stoppedAt;
            System.out.printf("[scheduler] quarkus shutdown hand-over: %s stopped mid-run, exited after %d ms;"
                    + " %s ran the job %d ms after the stop (lease 40 s)%n", holder.name(), (exitedAt - stoppedAt) / 1000,
                    other.name(), takeover / 1000);
            assertTrue(ended(running.atMicros(), holder.name()), holder.name() + " let its running job finish before it exited");
            assertTrue(takeover < LEASE_MICROS / 2, "the other instance took over " + takeover / 1000
                    + " ms after the stop: the stopped holder's lease was not released");
            for (QuarkusInstance instance : new QuarkusInstance[] {a, b}) {
                assertFalse(instance.log().contains(" ERROR "), instance.name() + " logged an ERROR:\n" + instance.log());
            }
        }
    }

    private record Start(String instance, long atMicros) {
    }

    /** Waits for a run of the job that started after {@code sinceMicros}, on an instance other than {@code not}. */
    private Start awaitStart(long sinceMicros, String not) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (System.nanoTime() - deadline < 0) {
            try (Connection connection = JobRunTable.connect();
                 PreparedStatement read = connection.prepareStatement("SELECT instance, " + JobRunTable.MICROS
                         + " FROM job_run WHERE job = ? AND " + JobRunTable.MICROS + " > ? AND instance <> ? ORDER BY ran_at LIMIT 1")) {
                read.setString(1, run + "/handover-start");
                read.setLong(2, sinceMicros);
                read.setString(3, not == null ? "" : not);
                try (ResultSet row = read.executeQuery()) {
                    if (row.next()) {
                        return new Start(row.getString(1), row.getLong(2));
                    }
                }
            }
            Thread.sleep(100); // polling the database for the scheduler's progress
        }
        throw new AssertionError("no run of the job started within " + PATIENCE);
    }

    private boolean ended(long startedMicros, String instance) throws SQLException {
        try (Connection connection = JobRunTable.connect();
             PreparedStatement read = connection.prepareStatement("SELECT COUNT(*) FROM job_run WHERE job = ?"
                     + " AND instance = ? AND " + JobRunTable.MICROS + " > ?")) {
            read.setString(1, run + "/handover-end");
            read.setString(2, instance);
            read.setLong(3, startedMicros);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return row.getLong(1) > 0;
            }
        }
    }
}
