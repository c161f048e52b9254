package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.TestDatabase;
import io.locked.testing.StallingProxy;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An acquisition against a server that stopped answering (a hung server, a silent network: a proxy
 * that passes nothing on) ends within its documented bound ({@code docs/locking.md}, "Waiting"):
 * {@code maxWait} plus the connection wait, plus the 2 s a hung statement is allowed. Its statement
 * times out on the socket; a statement that timed out is not sent again (it would wait as long again),
 * and nothing is retried once the call's time is up: a second borrow would check an idle connection
 * for HikariCP's {@code validationTimeout} (5 s) against the same dead server.
 */
class HungServerBoundTest {
    private static final Duration MAX_WAIT = Duration.ofSeconds(1);
    /** {@code locked.connection-wait}, its default. */
    private static final Duration CONNECTION_WAIT = Duration.ofMillis(500);
    /** What a hung statement is allowed beyond the wait. */
    private static final Duration STATEMENT_ALLOWANCE = Duration.ofSeconds(2);
    private static final Duration DOCUMENTED_BOUND = MAX_WAIT.plus(CONNECTION_WAIT).plus(STATEMENT_ALLOWANCE);
    private static final Pattern HOST_AND_PORT = Pattern.compile("//([^:/]+):(\\d+)/");

    static Stream<Arguments> databasesAndModes() {
        List<Arguments> cases = new ArrayList<>();
        for (TestDatabase database : List.of(TestDatabase.MARIADB, TestDatabase.POSTGRESQL)) {
            for (LockMode mode : LockMode.values()) {
                cases.add(Arguments.of(database, mode));
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndModes")
    @Timeout(60)
    void anAcquisitionAgainstAServerThatStoppedAnsweringEndsWithinItsBound(TestDatabase database, LockMode mode)
            throws Exception {
        database.requireReachable();
        Matcher server = HOST_AND_PORT.matcher(database.url());
        assertTrue(server.find(), "no host and port in " + database.url());
        try (StallingProxy proxy = StallingProxy.start(server.group(1), Integer.parseInt(server.group(2)))) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(database.url().replace(server.group(1) + ":" + server.group(2), "127.0.0.1:" + proxy.port()));
            config.setUsername(database.user());
            config.setPassword(database.password());
            config.setMaximumPoolSize(4);
            config.setPoolName("locked-stalled-" + database.name().toLowerCase(Locale.ROOT));
            config.setConnectionTimeout(10_000);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                EntityManagerFactory factory = database.entityManagerFactory(pool);
                JpaLockRepository repository = JpaLockRepository.builder(factory).statements(LockStatements.NATIVE).build();
                repository.createTableIfMissing();
                LockManager locks = LockManagerBuilder.on(repository).build();
                try {
                    LockRequest request = LockRequest.of("hung-server:" + mode + ":" + UUID.randomUUID()).mode(mode)
                            .maxWait(MAX_WAIT);
                    // this thread's last connection, used just now: HikariCP lends it again unchecked (it
                    // checks a connection idle for more than half a second), so the call meets the server
                    locks.acquire(request).close();
                    proxy.stall();
                    long started = System.nanoTime();
                    assertThrows(LockException.class, () -> locks.acquire(request).close());
                    Duration took = Duration.ofNanos(System.nanoTime() - started);
                    assertTrue(took.compareTo(DOCUMENTED_BOUND) <= 0, "an acquisition with maxWait " + MAX_WAIT
                            + " against a server that stopped answering took " + took + ", past its bound of " + DOCUMENTED_BOUND);
                } finally {
                    proxy.resume();
                    locks.close();
                    factory.close();
                }
            }
        }
    }
}
