package io.locked.quarkus.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.testing.StallingProxy;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Locked's readiness check through a real server's health endpoint (Quarkus' /q/health/ready): UP with
 * the database answering; DOWN, within its timeout, when the database stops answering (a proxy in
 * between stops passing bytes); UP again once it answers. Quarkus' own datasource check is switched
 * off for this instance: it would wait on the hung database itself.
 */
class ReadinessOnQuarkusIT {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void upDownWithinTheTimeoutWhileTheDatabaseHangsAndUpAgain() throws Exception {
        try (StallingProxy proxy = StallingProxy.start("127.0.0.1", 3306);
             QuarkusInstance instance = new QuarkusInstance("proxied")) {
            instance.start("-Dquarkus.datasource.jdbc.url=jdbc:mariadb://127.0.0.1:" + proxy.port() + "/locked_quarkus",
                    "-Dlocked.health.timeout=1s");
            HttpResponse<String> up = ready(instance);
            assertEquals(200, up.statusCode(), up.body());
            assertTrue(compact(up.body()).contains("\"name\":\"locked\",\"status\":\"UP\""), up.body());

            proxy.stall();
            // the answer comes while the database still hangs (the request's own bound is 30 s)
            HttpResponse<String> down = ready(instance);
            assertEquals(503, down.statusCode(), down.body());
            assertTrue(compact(down.body()).contains("\"store\":\"notansweringwithin1000ms\""), down.body());

            proxy.resume();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            HttpResponse<String> again = ready(instance);
            while (again.statusCode() != 200 && System.nanoTime() < deadline) {
                Thread.sleep(200); // polling the endpoint, as an orchestrator does
                again = ready(instance);
            }
            assertEquals(200, again.statusCode(), again.body());
            System.out.printf("[quarkus] readiness through /q/health/ready: UP, then DOWN while the database hung (%s), then UP%n",
                    compact(down.body()).replaceAll(".*\"store\":\"([^\"]*)\".*", "$1"));
        }
    }

    private HttpResponse<String> ready(QuarkusInstance instance) throws Exception {
        return http.send(HttpRequest.newBuilder(instance.readiness()).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static String compact(String json) {
        return json.replaceAll("\\s", "");
    }
}
