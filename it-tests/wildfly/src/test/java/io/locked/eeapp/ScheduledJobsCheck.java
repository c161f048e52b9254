package io.locked.eeapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * The scheduled jobs of the servers' application (io.locked.eeapp.jobs) on two running servers of
 * one kind, the second one's clock 3.5 s ahead (libfaketime): EJB {@code @Schedule} every 2 s of each
 * server's clock, with {@code @Locked} on the {@code @Schedule} method itself, and a managed scheduled
 * executor at a fixed rate of 2 s aligned to each server's clock, calling a CDI bean's {@code @Locked}
 * method. The two servers' triggers fire half a second apart. The jobs record each run with the
 * database's clock and the token of the lock it ran in.
 *
 * <p>With {@code holdAtLeast = "1500ms"} no two runs of a job are closer than that hold: one run per
 * period, each inside its lock. Without it (the negative control), the job runs at both servers'
 * triggers, half a second apart.
 */
public final class ScheduledJobsCheck {
    private static final long HOLD_MICROS = 1_500_000;
    /** Runs are stamped inside the job, a few milliseconds after the lock was granted: allow for that. */
    private static final long STAMP_SLACK_MICROS = 200_000;
    private static final Duration CLOCK_AHEAD = Duration.ofMillis(3500);
    private static final int RUNS = 8;
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private static final List<String> HELD = List.of("ejb-held", "executor-held");
    private static final List<String> BARE = List.of("ejb-bare", "executor-bare");
    private static final List<String> JOBS = Stream.concat(HELD.stream(), BARE.stream()).toList();
    private final HttpClient http = RunningServer.http(Duration.ofSeconds(5));
    private final List<? extends EeApplicationTests.Server> servers;
    private final String label;
    private final String url;
    private final String run = UUID.randomUUID().toString();

    /**
     * @param servers two servers, the second one started with its clock {@link #CLOCK_AHEAD} ahead
     * @param label   the kind of server, for the figures printed
     * @param url     the JDBC URL of the application's database
     */
    public ScheduledJobsCheck(List<? extends EeApplicationTests.Server> servers, String label, String url) {
        this.servers = servers;
        this.label = label;
        this.url = url;
    }

    /** Sets the second server's clock ahead, as {@link #run()} expects it; call before its start. */
    public static void setClockAhead(RunningServer server) {
        server.setClockAhead(CLOCK_AHEAD);
    }

    public void run() throws Exception {
        createTable();
        long skew = clock(servers.get(1)) - clock(servers.get(0));
        assertTrue(Math.abs(skew - CLOCK_AHEAD.toMillis()) < 1000, "the second server's clock should be "
                + CLOCK_AHEAD.toMillis() + " ms ahead of the first one's (libfaketime), but is " + skew + " ms ahead");
        long armed;
        try {
            for (EeApplicationTests.Server server : servers) {
                assertEquals(200, send("POST", server.http().resolve("ticks/" + run)).statusCode());
            }
            armed = databaseNowMicros();
            awaitRuns(armed);
        } finally {
            for (EeApplicationTests.Server server : servers) {
                send("DELETE", server.http().resolve("ticks"));
            }
        }
        for (String job : HELD) {
            List<long[]> runs = runsSince(job, armed);
            report(job, runs);
            long closest = closestGap(runs);
            assertTrue(closest >= HOLD_MICROS - STAMP_SLACK_MICROS, job + ": two runs " + closest / 1000
                    + " ms apart, under its minimum hold of 1.5 s: " + describe(runs));
            assertTrue(runs.stream().allMatch(r -> r[1] > 0), job + ": a run outside its lock: " + describe(runs));
        }
        for (String job : BARE) {
            List<long[]> runs = runsSince(job, armed);
            report(job, runs);
            long closest = closestGap(runs);
            assertTrue(closest < 1_200_000, job + ": without a hold, the two servers' triggers should both have run"
                    + " it, but no two runs were closer than " + closest / 1000 + " ms: " + describe(runs));
            assertTrue(runs.stream().allMatch(r -> r[1] > 0), job + ": a run outside its lock: " + describe(runs));
        }
    }

    private void awaitRuns(long since) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            boolean enough = true;
            for (String job : JOBS) {
                enough &= runsSince(job, since).size() >= RUNS;
            }
            if (enough) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                StringBuilder seen = new StringBuilder();
                for (String job : JOBS) {
                    seen.append("\n").append(job).append(": ").append(describe(runsSince(job, since)));
                }
                throw new AssertionError("within " + PATIENCE + " the jobs did not run " + RUNS + " times each:" + seen);
            }
            Thread.sleep(200); // polling the database for the schedulers' progress
        }
    }

    private void report(String job, List<long[]> runs) {
        double periods = runs.isEmpty() ? 0 : (runs.get(runs.size() - 1)[0] - runs.get(0)[0]) / 2_000_000.0 + 1;
        System.out.printf("[scheduler] %s %s: %d runs in %.1f periods of 2 s, closest two %d ms apart, %d outside a lock%n",
                label, job, runs.size(), periods, closestGap(runs) / 1000, runs.stream().filter(r -> r[1] == -1).count());
    }

    private static long closestGap(List<long[]> runs) {
        long closest = Long.MAX_VALUE;
        for (int i = 1; i < runs.size(); i++) {
            closest = Math.min(closest, runs.get(i)[0] - runs.get(i - 1)[0]);
        }
        return closest;
    }

    private static String describe(List<long[]> runs) {
        StringBuilder text = new StringBuilder();
        long first = runs.isEmpty() ? 0 : runs.get(0)[0];
        for (long[] r : runs) {
            text.append(String.format(" +%dms(token %d)", (r[0] - first) / 1000, r[1]));
        }
        return text.toString();
    }

    private long clock(EeApplicationTests.Server server) throws Exception {
        long before = System.currentTimeMillis();
        long theirs = Long.parseLong(send("GET", server.http().resolve("ticks/clock")).body().trim());
        long after = System.currentTimeMillis();
        return theirs - (before + after) / 2; // relative to this JVM's clock, the request's duration halved
    }

    private HttpResponse<String> send(String method, URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private void createTable() throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "locked", "locked")) {
            connection.createStatement().execute("CREATE TABLE IF NOT EXISTS job_run (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
                    + " job VARCHAR(200) NOT NULL, instance VARCHAR(40) NOT NULL, token BIGINT NOT NULL,"
                    + " ran_at DATETIME(6) NOT NULL)");
        }
    }

    /** @return each run since then: its time on the database's clock in microseconds, and its lock's token */
    private List<long[]> runsSince(String job, long sinceMicros) throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "locked", "locked");
             PreparedStatement read = connection.prepareStatement("SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01', ran_at), token"
                     + " FROM job_run WHERE job = ? AND TIMESTAMPDIFF(MICROSECOND, '1970-01-01', ran_at) > ? ORDER BY ran_at")) {
            read.setString(1, run + "/" + job);
            read.setLong(2, sinceMicros);
            List<long[]> runs = new ArrayList<>();
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    runs.add(new long[] {rows.getLong(1), rows.getLong(2)});
                }
            }
            return runs;
        }
    }

    private long databaseNowMicros() throws SQLException {
        try (Connection connection = DriverManager.getConnection(url, "locked", "locked");
             ResultSet now = connection.createStatement().executeQuery(
                     "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))")) {
            now.next();
            return now.getLong(1);
        }
    }
}
