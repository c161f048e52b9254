package io.locked.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The lease locks of other projects on the same database, the same pool and an empty critical
 * section, configured as their documentation shows and used through their public API only: what
 * an application would pick instead of Locked's optimistic mode. Each keeps its own table, which
 * this creates if it is missing and empties before the run, as the benchmark does with Locked's.
 *
 * <p>Neither waits for a busy lock by itself in the form measured here (ShedLock never waits;
 * Spring's {@code tryLock()} asks once), so a refusal is tried again with the raw optimistic case's
 * {@link Backoff}: all the optimistic cases wait alike, and the comparison measures the locks.
 */
final class PeerCycles implements AutoCloseable {
    /** Both peers' lease, as long as Locked's optimistic cases'. */
    static final Duration LEASE = Duration.ofSeconds(30);
    private static final String SPRING_SCHEMAS = "org/springframework/integration/jdbc/schema-%s.sql";
    private static final Pattern SPRING_LOCK_TABLE = Pattern.compile("CREATE TABLE INT_LOCK\\s*\\([^;]*\\)[^;]*");

    private final LockProvider shedLock;
    private final DefaultLockRepository springRepository;
    private final JdbcLockRegistry springRegistry;

    PeerCycles(DataSource pool, BenchDatabase database) throws SQLException, IOException {
        createIfMissing(pool, "shedlock", shedLockTable(database));
        createIfMissing(pool, "INT_LOCK", springLockTable(database));
        try (Connection connection = pool.getConnection(); Statement clear = connection.createStatement()) {
            // a lease left by an earlier run that stopped mid-cycle would hold its key for 30 s
            clear.executeUpdate("DELETE FROM shedlock");
            clear.executeUpdate("DELETE FROM INT_LOCK");
        }
        shedLock = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                .withJdbcTemplate(new JdbcTemplate(pool))
                .usingDbTime()
                .build());
        springRepository = new DefaultLockRepository(pool);
        // outside a Spring context: what the context would hand it, done by hand
        springRepository.setTransactionManager(new DataSourceTransactionManager(pool));
        springRepository.afterPropertiesSet();
        springRepository.afterSingletonsInstantiated();
        springRepository.start();
        springRegistry = new JdbcLockRegistry(springRepository, LEASE);
    }

    /**
     * ShedLock's {@code JdbcTemplateLockProvider} with the database's clock: lock for at most the
     * lease, at least nothing, then unlock. A refused lock (an empty answer) is tried again.
     */
    void shedLock(String key, Runnable inside) {
        AtomicReference<SimpleLock> held = new AtomicReference<>();
        Backoff.untilTaken(() -> {
            Optional<SimpleLock> lock = shedLock.lock(new LockConfiguration(ClockProvider.now(), key, LEASE, Duration.ZERO));
            lock.ifPresent(held::set);
            return lock.isPresent();
        });
        try {
            inside.run();
        } finally {
            held.get().unlock();
        }
    }

    /**
     * Spring Integration's {@code JdbcLockRegistry} on a {@code DefaultLockRepository}: the key's
     * lock from the registry, {@code tryLock()} (one try, no wait), then unlock. A refused try is
     * tried again.
     */
    void springJdbcLockRegistry(String key, Runnable inside) {
        Lock lock = springRegistry.obtain(key);
        Backoff.untilTaken(lock::tryLock);
        try {
            inside.run();
        } finally {
            lock.unlock();
        }
    }

    /** Ends the Spring repository, which deletes the locks its client still holds. */
    @Override
    public void close() {
        springRepository.stop();
        springRepository.close();
    }

    /** ShedLock's table as its documentation gives it for each database (H2: the generic form). */
    private static String shedLockTable(BenchDatabase database) {
        return switch (database) {
            case MARIADB, MYSQL8 -> "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP(3) NOT NULL,"
                    + " locked_at TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), locked_by VARCHAR(255) NOT NULL,"
                    + " PRIMARY KEY (name))";
            case POSTGRESQL, H2 -> "CREATE TABLE shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT NULL,"
                    + " locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))";
        };
    }

    /**
     * The {@code INT_LOCK} table as the Spring Integration jar on the class path ships it in its
     * schema script for the database (MariaDB takes MySQL's), so that the table always matches the
     * version measured.
     */
    private static String springLockTable(BenchDatabase database) throws IOException {
        String script = String.format(SPRING_SCHEMAS, switch (database) {
            case H2 -> "h2";
            case MARIADB, MYSQL8 -> "mysql";
            case POSTGRESQL -> "postgresql";
        });
        try (InputStream in = DefaultLockRepository.class.getClassLoader().getResourceAsStream(script)) {
            if (in == null) {
                throw new IllegalStateException(script + " is not on the class path: is spring-integration-jdbc?");
            }
            Matcher table = SPRING_LOCK_TABLE.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            if (!table.find()) {
                throw new IllegalStateException(script + " has no CREATE TABLE INT_LOCK");
            }
            return table.group();
        }
    }

    private static void createIfMissing(DataSource pool, String table, String create) throws SQLException {
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            try {
                statement.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0").close();
            } catch (SQLException missing) {
                statement.execute(create);
            }
        }
    }
}
