package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.testing.StallingProxy;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The packaged application started as its users start it ({@code java -jar quarkus-run.jar}) with what
 * the build could not see: a bad Locked value given at run time refuses the start, naming the key;
 * and a database that is down at start-up leaves the application up with readiness down, fails a
 * call with LockStoreUnavailableException, and recovers once the database answers.
 */
class StartupOnQuarkusIT {
    private static final Duration BOUND = Duration.ofSeconds(120);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aBadRunTimeValueRefusesTheStartNamingTheKey() throws Exception {
        try (QuarkusInstance instance = new QuarkusInstance("bad-mode")) {
            instance.startUnready("-Dlocked.default.mode=pessimistc");
            assertTrue(instance.process().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS),
                    "the application kept running with locked.default.mode=pessimistc:\n" + instance.log());
            assertNotEquals(0, instance.process().exitValue(), instance.log());
            String log = instance.log();
            assertTrue(log.contains("from config locked.default.mode=pessimistc: unknown value 'pessimistc', expected one of"
                    + " [pessimistic, optimistic]"), log);
        }
    }

    // a database that answers without the lock table (schema generation off, as with migrations):
    // the start is refused, naming the script for MariaDB, how to print it, and locked.create-table
    @Test
    void aDatabaseWithoutTheLockTableRefusesTheStart() throws Exception {
        String url = "jdbc:mariadb://127.0.0.1:3306/locked_quarkus_empty"; // .ci/run creates it, with no table
        try (Connection connection = DriverManager.getConnection(url, "locked", "locked");
             Statement drop = connection.createStatement()) {
            drop.execute("DROP TABLE IF EXISTS locked_lock");
        }
        try (QuarkusInstance instance = new QuarkusInstance("no-lock-table")) {
            instance.startUnready("-Dquarkus.datasource.jdbc.url=" + url, "-Dquarkus.hibernate-orm.database.generation=none");
            assertTrue(instance.process().waitFor(BOUND.toSeconds(), TimeUnit.SECONDS),
                    "the application kept running without the lock table:\n" + instance.log());
            assertNotEquals(0, instance.process().exitValue(), instance.log());
            String log = instance.log();
            for (String part : new String[] {"The lock table locked_lock does not exist", "META-INF/locked/schema-mysql.sql",
                    "java -cp lock-jpa.jar io.locked.jpa.LockSchema mariadb", "locked.create-table=true"}) {
                assertTrue(log.contains(part), "expected <" + part + "> in:\n" + log);
            }
        }
    }

    @Test
    void theDatabaseDownAtStartUpIsLockStoreUnavailableAndRecovers() throws Exception {
        int port = freePort(); // nothing listens there yet: connections are refused
        try (QuarkusInstance instance = new QuarkusInstance("database-down")) {
            instance.startUnready("-Dquarkus.datasource.jdbc.url=jdbc:mariadb://127.0.0.1:" + port + "/locked_quarkus",
                    "-Dlocked.health.timeout=1s",
                    // Hibernate's schema generation would end the start without a database (as the user,
                    // who runs migrations, had it off): the lock table comes with the store once it answers
                    "-Dquarkus.hibernate-orm.database.generation=none", "-Dlocked.create-table=true");
            // refused, not "not answering": the database is down, not slow (the first check may time out
            // while it creates the store)
            HttpResponse<String> down = await(instance, "readiness to say refused", () -> get(instance, "q/health/ready"),
                    response -> response.statusCode() == 503 && response.body().replaceAll("\\s", "")
                            .contains("\"store\":\"refused:thedatabaserefusesconnections"));
            assertTrue(instance.process().isAlive(), instance.log());

            HttpResponse<String> call = post(instance, "reports/daily-while-held");
            assertEquals(500, call.statusCode(), call.body());
            String log = instance.log();
            assertTrue(log.contains("LockStoreUnavailableException"), log);
            assertFalse(log.contains("pass a LockDatabase to JpaLockRepository explicitly"), log);
            assertFalse(log.contains("Enlarge the pool"), log);

            try (StallingProxy database = StallingProxy.startOn(port, "127.0.0.1", 3306)) {
                await(instance, "readiness UP once the database answers", () -> get(instance, "q/health/ready"),
                        response -> response.statusCode() == 200);
                HttpResponse<String> again = post(instance, "reports/daily-while-held");
                assertEquals(200, again.statusCode(), again.body());
                assertTrue(again.body().contains("outcome=SKIP"), again.body());
                System.out.printf("[quarkus] database down at start-up: readiness %s, then UP and locking once it answered%n",
                        down.body().replaceAll("\\s", ""));
            }
        }
    }

    private interface Call {
        HttpResponse<String> send() throws Exception;
    }

    private static HttpResponse<String> await(QuarkusInstance instance, String what, Call call,
                                              Predicate<HttpResponse<String>> done) throws Exception {
        long deadline = System.nanoTime() + BOUND.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            assertTrue(instance.process().isAlive(), "exited while waiting for " + what + ":\n" + instance.log());
            try {
                HttpResponse<String> response = call.send();
                if (done.test(response)) {
                    return response;
                }
                last = response.statusCode() + " " + response.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(200); // polling the endpoint, as an orchestrator does
        }
        throw new AssertionError("no " + what + " within " + BOUND + " (last: " + last + "):\n" + instance.log());
    }

    private HttpResponse<String> get(QuarkusInstance instance, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(instance.http().resolve(path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(QuarkusInstance instance, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(instance.http().resolve(path)).timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
