package io.locked.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import javax.sql.DataSource;

/**
 * The databases the benchmark runs on: the servers of the tests, but a database of the benchmark's
 * own ({@code locked_bench}, which .ci/run creates), because the benchmark empties its lock table;
 * override with LOCKED_BENCH_MARIADB_URL, LOCKED_BENCH_POSTGRESQL_URL, LOCKED_BENCH_MYSQL8_URL and
 * their _USER/_PASSWORD. MySQL 8 is a private server that the benchmark starts itself
 * ({@link BenchMySql8}) unless LOCKED_BENCH_MYSQL8_URL names one. Each gets one pool; the raw JDBC
 * cases, the programmatic API and the {@code @Locked} beans all draw from it.
 */
enum BenchDatabase {
    H2("jdbc:h2:mem:locked-bench;DB_CLOSE_DELAY=-1", "sa", "", "org.hibernate.dialect.H2Dialect",
            "CURRENT_TIMESTAMP(6)", "DATEADD(SECOND, 30, CURRENT_TIMESTAMP(6))",
            "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6))",
            "INSERT INTO locked_lock (lock_key, version, token) SELECT CONCAT('fill-', X), 0, 0 FROM SYSTEM_RANGE(?, ?)"),
    MARIADB(env("LOCKED_BENCH_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/locked_bench"
                    + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true"),
            env("LOCKED_BENCH_MARIADB_USER", "locked"), env("LOCKED_BENCH_MARIADB_PASSWORD", "locked"),
            "org.hibernate.dialect.MariaDBDialect",
            "UTC_TIMESTAMP(6)", "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL 30 SECOND)",
            "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
            // the Sequence engine ships with MariaDB; seq_1_to_N cannot take parameters, so the
            // range is filtered instead
            "INSERT INTO locked_lock (lock_key, version, token) SELECT CONCAT('fill-', seq), 0, 0"
                    + " FROM seq_1_to_1000000 WHERE seq BETWEEN ? AND ?"),
    POSTGRESQL(env("LOCKED_BENCH_POSTGRESQL_URL", "jdbc:postgresql://127.0.0.1:5432/locked_bench"),
            env("LOCKED_BENCH_POSTGRESQL_USER", "postgres"), env("LOCKED_BENCH_POSTGRESQL_PASSWORD", ""),
            "org.hibernate.dialect.PostgreSQLDialect",
            "clock_timestamp()", "clock_timestamp() + INTERVAL '30 seconds'",
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
            "INSERT INTO locked_lock (lock_key, version, token) SELECT 'fill-' || g, 0, 0 FROM generate_series(?, ?) g"),
    /**
     * MySQL 8.0.15 through Connector/J with its default properties, as the tests run it (no
     * {@code useLocalSessionState}: that is MariaDB's benchmark setting, kept from earlier reports).
     */
    MYSQL8(env("LOCKED_BENCH_MYSQL8_URL", ""), env("LOCKED_BENCH_MYSQL8_USER", ""),
            env("LOCKED_BENCH_MYSQL8_PASSWORD", ""), "org.hibernate.dialect.MySQLDialect",
            "UTC_TIMESTAMP(6)", "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL 30 SECOND)",
            "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
            // no sequence table on MySQL, and a recursive CTE stops at 1000 levels by default: six
            // digits of a ten-row table make 1..1000000
            "INSERT INTO locked_lock (lock_key, version, token)"
                    + " WITH digits (d) AS (SELECT 0 UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3"
                    + " UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7"
                    + " UNION ALL SELECT 8 UNION ALL SELECT 9)"
                    + " SELECT CONCAT('fill-', n), 0, 0 FROM (SELECT 1 + a.d + 10 * b.d + 100 * c.d + 1000 * e.d"
                    + " + 10000 * f.d + 100000 * g.d AS n FROM digits a, digits b, digits c, digits e, digits f,"
                    + " digits g) numbers WHERE n BETWEEN ? AND ?");

    private final String url;
    private final String user;
    private final String password;
    private final String dialect;
    /** The database's clock, that clock plus a 30 s lease, and it in microseconds, for the hand-written locks. */
    final String now;
    final String nowPlusLease;
    final String nowMicros;
    /** Inserts the rows fill-N for N in [?, ?], for the table-size comparison. */
    final String fillRows;

    BenchDatabase(String url, String user, String password, String dialect, String now, String nowPlusLease,
                  String nowMicros, String fillRows) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.dialect = dialect;
        this.now = now;
        this.nowPlusLease = nowPlusLease;
        this.nowMicros = nowMicros;
        this.fillRows = fillRows;
    }

    /** @return the JDBC URL (MYSQL8: the private server's, which this starts at first use, unless overridden) */
    String url() {
        return privateServer() ? BenchMySql8.server().url() : url;
    }

    String user() {
        return privateServer() ? BenchMySql8.server().user() : user;
    }

    String password() {
        return privateServer() ? BenchMySql8.server().password() : password;
    }

    private boolean privateServer() {
        return this == MYSQL8 && url.isEmpty();
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /**
     * Lets the database catch up after a bulk fill: fresh statistics, and on PostgreSQL a vacuum and
     * a checkpoint, so that the next measurement does not pay for the fill's dead tuples and WAL.
     */
    void settle(DataSource pool) throws SQLException {
        List<String> statements = switch (this) {
            case H2 -> List.of("ANALYZE TABLE locked_lock");
            case MARIADB, MYSQL8 -> List.of("ANALYZE TABLE locked_lock");
            case POSTGRESQL -> List.of("VACUUM ANALYZE locked_lock", "CHECKPOINT");
        };
        try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
            for (String sql : statements) {
                statement.execute(sql);
            }
        }
    }

    /**
     * The server's count of write-ahead log flushes (fsyncs) so far, read on a connection of its own,
     * or null for H2 (in memory). InnoDB counts its fsyncs as they happen (MySQL its redo log's, MariaDB
     * all of them: a write that flushes data pages too counts twice). PostgreSQL counts
     * {@code pg_stat_wal.wal_sync}, which each session reports when it goes idle, at most once a second:
     * over a window of seconds the count may be off by a second's flushes.
     */
    LongSupplier logFlushes(Connection connection) {
        String sql = switch (this) {
            case H2 -> null;
            // MariaDB 10.11 no longer has Innodb_os_log_fsyncs: its Innodb_data_fsyncs counts the log's too
            case MARIADB -> "SHOW GLOBAL STATUS LIKE 'Innodb_data_fsyncs'";
            case MYSQL8 -> "SHOW GLOBAL STATUS LIKE 'Innodb_os_log_fsyncs'";
            case POSTGRESQL -> "SELECT 'wal_sync', wal_sync FROM pg_stat_wal";
        };
        if (sql == null) {
            return null;
        }
        return () -> {
            try (Statement read = connection.createStatement(); java.sql.ResultSet row = read.executeQuery(sql)) {
                row.next();
                return row.getLong(2);
            } catch (SQLException failure) {
                throw new IllegalStateException(this + ": reading the log flush count failed", failure);
            }
        };
    }

    HikariDataSource pool(int connections) {
        return pool(connections, url(), "bench-");
    }

    /**
     * A pool on the cleanup measurement's database ({@link CleanupMeasurement}), its own because it
     * fills its lock table with a million idle rows: {@code locked_cleanup_bench} (override with
     * LOCKED_CLEANUP_BENCH_MARIADB_URL, LOCKED_CLEANUP_BENCH_POSTGRESQL_URL; user and password are the
     * benchmark's), an H2 database of its own, or MySQL 8's private server, which nothing else uses
     * while the benchmark runs.
     */
    HikariDataSource cleanupPool(int connections) {
        String cleanupUrl = switch (this) {
            case H2 -> "jdbc:h2:mem:locked-cleanup-bench;DB_CLOSE_DELAY=-1";
            case MARIADB -> env("LOCKED_CLEANUP_BENCH_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/locked_cleanup_bench"
                    + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true");
            case POSTGRESQL -> env("LOCKED_CLEANUP_BENCH_POSTGRESQL_URL", "jdbc:postgresql://127.0.0.1:5432/locked_cleanup_bench");
            case MYSQL8 -> url();
        };
        return pool(connections, cleanupUrl, "cleanup-bench-");
    }

    private HikariDataSource pool(int connections, String jdbcUrl, String poolPrefix) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(user());
        config.setPassword(password());
        config.setMaximumPoolSize(connections);
        config.setMinimumIdle(connections);
        config.setPoolName(poolPrefix + name().toLowerCase());
        return new HikariDataSource(config);
    }

    EntityManagerFactory entityManagerFactory(HikariDataSource pool) {
        Map<String, Object> properties = new HashMap<>();
        properties.put("jakarta.persistence.nonJtaDataSource", pool);
        properties.put("hibernate.dialect", dialect);
        if (this == MARIADB) {
            // Connector/J reports MariaDB as "5.5.5-10.x"
            properties.put("jakarta.persistence.database-product-name", "MariaDB");
            properties.put("jakarta.persistence.database-major-version", 10);
            properties.put("jakarta.persistence.database-minor-version", 11);
        }
        return Persistence.createEntityManagerFactory("locked-bench", properties);
    }
}
