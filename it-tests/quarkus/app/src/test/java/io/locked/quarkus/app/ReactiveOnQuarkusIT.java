package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code @Locked} reactive endpoints ({@link ReactiveOrders}) on two instances of the packaged
 * application: the lock holds across the instances, no event loop is taken while requests wait for it,
 * and a request whose client hangs up releases its lock rather than keeping the key.
 */
class ReactiveOnQuarkusIT {
    private static final int REQUESTS_PER_INSTANCE = 6;
    /** More waiters than the instance has event loops (two per core). */
    private static final int WAITERS = 2 * 2 * Runtime.getRuntime().availableProcessors() + 1;
    private final String run = UUID.randomUUID().toString();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void callsOfOneOrderRunOneAtATimeAcrossInstancesWithoutBlockingAnEventLoop() throws Exception {
        try (QuarkusInstance a = new QuarkusInstance("reactive-a");
             QuarkusInstance b = new QuarkusInstance("reactive-b")) {
            a.start("-Dlocked-app.tick.run=" + run, EventLoopCheck.STRICT);
            b.start("-Dlocked-app.tick.run=" + run, EventLoopCheck.STRICT);
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < REQUESTS_PER_INSTANCE; i++) {
                for (QuarkusInstance instance : List.of(a, b)) {
                    calls.add(http.sendAsync(get(instance, "reactive/ship/42"), HttpResponse.BodyHandlers.ofString()));
                }
            }
            for (CompletableFuture<HttpResponse<String>> call : calls) {
                HttpResponse<String> response = call.get(120, TimeUnit.SECONDS);
                assertEquals(200, response.statusCode(), response.body());
                assertEquals("shipped 42", response.body());
            }
            EventLoopCheck.assertNeverBlocked(a, b);
        }
        List<String> history = history("ship-enter", "ship-exit");
        assertEquals(4 * REQUESTS_PER_INSTANCE, history.size(), history.toString());
        for (int i = 0; i < history.size(); i += 2) { // in the database's order of the writes
            assertTrue(history.get(i).startsWith("ship-enter") && history.get(i + 1).startsWith("ship-exit")
                    && history.get(i).substring(10).equals(history.get(i + 1).substring(9)),
                    "two calls of one order overlapped: " + history);
        }
    }

    /**
     * A request holds an order's lock until its client hangs up; meanwhile more requests of the same instance
     * wait for that order, one per event loop and more, and the instance still answers others at once: no
     * loop is taken by a wait. Once the client hangs up, its request's lock is released (the hung request's
     * Uni never completes: only the cancel at the hang-up can free the key) and the waiters are served.
     */
    @Test
    void waitingRequestsLeaveTheEventLoopsFreeAndAClientThatHangsUpReleasesItsLock() throws Exception {
        try (QuarkusInstance a = new QuarkusInstance("hangup-a");
             QuarkusInstance b = new QuarkusInstance("hangup-b")) {
            a.start("-Dlocked-app.tick.run=" + run);
            b.start("-Dlocked-app.tick.run=" + run);
            long hungUp;
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            CompletableFuture<HttpResponse<String>> otherInstance;
            try (Socket client = new Socket(a.http().getHost(), a.http().getPort())) {
                OutputStream out = client.getOutputStream();
                out.write(("GET /reactive/hang/7 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.flush();
                awaitRows("hang-enter", 1);
                for (int i = 0; i < WAITERS; i++) {
                    waiting.add(HttpClient.newHttpClient().sendAsync(get(a, "reactive/ship/7"), HttpResponse.BodyHandlers.ofString()));
                }
                otherInstance = http.sendAsync(get(b, "reactive/ship/7"), HttpResponse.BodyHandlers.ofString());
                for (int i = 0; i < WAITERS; i++) { // each on a connection of its own, so on every event loop in turn
                    HttpResponse<String> pong = HttpClient.newHttpClient().send(get(a, "reactive/ping"),
                            HttpResponse.BodyHandlers.ofString());
                    assertEquals("pong", pong.body());
                }
                assertEquals(List.of(), history("ship-enter"), "the waiters were still waiting while the pings were answered");
                hungUp = System.nanoTime();
            }
            for (CompletableFuture<HttpResponse<String>> call : waiting) {
                assertEquals(200, call.get(120, TimeUnit.SECONDS).statusCode());
            }
            assertEquals(200, otherInstance.get(120, TimeUnit.SECONDS).statusCode());
            long served = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - hungUp);
            System.out.printf("[reactive] quarkus: %d callers waiting on two instances were all served %d ms after the"
                    + " client of the holding request hung up (200 ms each)%n", WAITERS + 1, served);
        }
    }

    private HttpRequest get(QuarkusInstance instance, String path) {
        return HttpRequest.newBuilder(URI.create(instance.http() + path)).timeout(Duration.ofSeconds(120)).build();
    }

    private void awaitRows(String what, int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (history(what).size() < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 60 s, no " + what + " was recorded");
            }
            Thread.sleep(50); // polling the database for the request's progress
        }
    }

    /** @return each recorded call as {@code <what>@<instance>}, in the order the database took the writes */
    private List<String> history(String... what) throws SQLException {
        try (Connection connection = JobRunTable.connect();
             PreparedStatement read = connection.prepareStatement(
                     "SELECT job, instance FROM job_run WHERE job LIKE ? ORDER BY id")) {
            read.setString(1, run + "/%");
            List<String> history = new ArrayList<>();
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    String job = rows.getString(1).substring(run.length() + 1);
                    if (List.of(what).contains(job)) {
                        history.add(job + "@" + rows.getString(2));
                    }
                }
            }
            return history;
        }
    }
}
