package io.locked.it.weld.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.it.weld.TestConfig;
import io.locked.jpa.cdi.JpaLockStoreProducer;
import io.locked.testing.StallingProxy;
import io.locked.jpa.testing.TestDatabase;
import java.net.URI;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The MicroProfile Health readiness check "locked" as a container finds it (a {@code @Readiness}
 * {@code HealthCheck} bean, added by the extension because the Health API is on the class path), with
 * SmallRye Health building its responses: up with the database up, down within its timeout when the
 * database stops answering, up again after, and down naming the cause when the lock table is missing.
 */
class ReadinessCheckTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    private static Weld deployment(Class<?> lockStore) {
        return new Weld().disableDiscovery().addExtension(new LockedExtension())
                .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        JpaLockStoreProducer.class, lockStore);
    }

    @Test
    void upWhileTheDatabaseAnswersDownWithinItsTimeoutWhenItStopsAndUpAgainAfter() throws Exception {
        TestDatabase database = TestDatabase.MARIADB;
        database.requireReachable();
        TestConfig.set("locked.create-table", "true");
        TestConfig.set("locked.health.timeout", "1s");
        URI server = URI.create(database.url().substring("jdbc:".length()));
        try (StallingProxy proxy = StallingProxy.start(server.getHost(), server.getPort())) {
            ProxiedLockStore.proxyPort = proxy.port();
            try (WeldContainer container = deployment(ProxiedLockStore.class).initialize()) {
                HealthCheck check = container.select(HealthCheck.class, Readiness.Literal.INSTANCE).get();

                HealthCheckResponse up = answered(check);
                assertEquals("locked", up.getName());
                assertEquals(HealthCheckResponse.Status.UP, up.getStatus(), String.valueOf(up.getData()));
                assertEquals(Optional.of("answering"), data(up, "store"));
                assertEquals(Optional.of("running"), data(up, "watchdog"));

                proxy.stall();
                // the verdict comes while the database still hangs: the check is bounded, not the database
                HealthCheckResponse down = CompletableFuture.supplyAsync(check::call).get(30, TimeUnit.SECONDS);
                assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus(), String.valueOf(down.getData()));
                assertEquals(Optional.of("not answering within 1000 ms"), data(down, "store"));

                proxy.resume();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                HealthCheckResponse again = check.call();
                while (again.getStatus() != HealthCheckResponse.Status.UP && System.nanoTime() < deadline) {
                    again = check.call();
                }
                assertEquals(HealthCheckResponse.Status.UP, again.getStatus(), String.valueOf(again.getData()));
            }
        }
    }

    @Test
    void downNamingTheCauseWhenTheLockTableIsMissing() {
        try (WeldContainer container = deployment(MissingTableLockStore.class).initialize()) {
            HealthCheckResponse down = answered(container.select(HealthCheck.class, Readiness.Literal.INSTANCE).get());
            assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus());
            String store = data(down, "store").orElse("");
            assertTrue(store.startsWith("failing:") && store.contains("The lock table locked_lock does not exist")
                    && store.contains("locked.create-table"), store);
        }
    }

    @Test
    void aHealthTimeoutThatIsNotPositiveFailsTheDeploymentNamingTheKey() {
        TestConfig.set("locked.health.timeout", "0s");
        RuntimeException failure = assertThrows(RuntimeException.class,
                () -> deployment(MissingTableLockStore.class).initialize().close());
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        assertTrue(messages.toString().contains("Invalid locked.health.timeout: must be positive, was 0s"), messages.toString());
    }

    // The first check creates the lock store, which on a loaded machine may take longer than the
    // check's timeout: the check then says "not answering" until that read returns.
    private static HealthCheckResponse answered(HealthCheck check) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        HealthCheckResponse response = check.call();
        while (data(response, "store").orElse("").startsWith("not answering") && System.nanoTime() < deadline) {
            response = check.call();
        }
        return response;
    }

    private static Optional<String> data(HealthCheckResponse response, String key) {
        return response.getData().map(data -> data.get(key)).map(String::valueOf);
    }
}
