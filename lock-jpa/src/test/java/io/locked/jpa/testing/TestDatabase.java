package io.locked.jpa.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.JpaLockRepository;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The real databases the tests run on. Servers are found on 127.0.0.1 (.ci/run starts them and
 * creates the database and user); override with LOCKED_MARIADB_URL, LOCKED_POSTGRESQL_URL and their
 * _USER/_PASSWORD. MySQL 8 is a private server that the test JVM starts itself ({@link #MYSQL8}). A
 * server that cannot be reached (or started) fails the test under CI=true, and is skipped (with the
 * reason) only on a developer's machine.
 */
public enum TestDatabase {
    H2("jdbc:h2:mem:locked;DB_CLOSE_DELAY=-1", "sa", "", "org.hibernate.dialect.H2Dialect"),
    MARIADB(env("LOCKED_MARIADB_URL", "jdbc:mysql://127.0.0.1:3306/" + Names.DATABASE
                    + "?sslMode=DISABLED&allowPublicKeyRetrieval=true&useLocalSessionState=true&connectTimeout=3000"),
            env("LOCKED_MARIADB_USER", "locked"), env("LOCKED_MARIADB_PASSWORD", "locked"),
            "org.hibernate.dialect.MariaDBDialect"),
    POSTGRESQL(env("LOCKED_POSTGRESQL_URL", "jdbc:postgresql://127.0.0.1:5432/" + Names.DATABASE + "?connectTimeout=3"),
            env("LOCKED_POSTGRESQL_USER", "postgres"), env("LOCKED_POSTGRESQL_PASSWORD", ""),
            "org.hibernate.dialect.PostgreSQLDialect"),
    /**
     * MySQL 8.0.15, through mysql-connector-j with its default properties: a private server of this
     * JVM ({@link PrivateMySql8}), started at first use, unless LOCKED_MYSQL8_URL names one (as for the
     * worker JVMs of it-tests, which reach their test's server).
     */
    MYSQL8(env("LOCKED_MYSQL8_URL", ""), env("LOCKED_MYSQL8_USER", ""), env("LOCKED_MYSQL8_PASSWORD", ""),
            "org.hibernate.dialect.MySQLDialect"),
    /** Embedded Apache Derby: no native statements, the JPA path only. */
    DERBY("jdbc:derby:memory:locked;create=true", "locked", "locked", "org.hibernate.dialect.DerbyDialect"),
    /**
     * Embedded HSQLDB: no native statements, the JPA path only, in the one configuration where it
     * excludes with bounded waits. MVCC, where a write locks the row (a {@code FOR UPDATE} read
     * locks nothing there; the other modes lock whole tables, and a query timeout does not reach the
     * first statement of a transaction that waits for one), and SERIALIZABLE (a snapshot), where a
     * write that meets another transaction's uncommitted write fails at once: under READ COMMITTED
     * it waits for that transaction to end, however long it holds the lock. No PAD SPACE, so that
     * 'k' and 'k ' are two keys. {@code -Dlocked.hsqldbUrl} names another setting (the repository
     * refuses those that do not exclude with bounded waits).
     */
    HSQLDB(System.getProperty("locked.hsqldbUrl",
            "jdbc:hsqldb:mem:locked;hsqldb.tx=mvcc;hsqldb.tx_level=serializable;sql.pad_space=false"),
            "locked", "locked", "org.hibernate.dialect.HSQLDialect");

    /**
     * The database of the tests on the MariaDB and PostgreSQL servers: {@code locked_test}, or the one
     * {@code -Dlocked.test.database} names (the store contract's test JVMs run side by side, each on a
     * database of its own, which {@code .ci/run} creates).
     */
    private static final class Names {
        static final String DATABASE = System.getProperty("locked.test.database", "locked_test");
    }

    /**
     * The tag of the test classes the build runs in four test JVMs side by side, each on databases of
     * its own ({@code -Dlocked.test.database}): classes that touch no server beyond their own database
     * and mostly wait (the store contract), or need the CPU little enough to share it.
     */
    public static final String SIDE_BY_SIDE = "side-by-side";

    /**
     * The tag of a store contract that repeats another on the same database, and whose difference CI
     * covers elsewhere: a second JPA provider (EclipseLink beside Hibernate; the embedded database keeps its
     * EclipseLink variant in CI), or the native statements in a JTA unit (the JTA units of the JPA path, and
     * the servers' JTA units on the native statements, stay in CI). Left out of CI's run to keep it within
     * its time, run with {@code -Pvariants}.
     */
    public static final String REPEATED_VARIANT = "repeated-variant";

    /** The persistence unit of the tests, listing only {@code LockRow}. */
    public static final String UNIT = "locked-test";
    /** Converts a MariaDB lock table made by an earlier schema script, as the script's comment says. */
    public static final String MARIADB_LOCK_TABLE_CONVERSION = "ALTER TABLE locked_lock"
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,"
            + " MODIFY owner VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,"
            + " MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL";
    private static final String MARIADB_FENCE_TABLE_CONVERSION = "ALTER TABLE locked_fence"
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL";
    private final String url;
    private final String user;
    private final String password;
    private final String dialect;
    private volatile boolean lockTableConverted;
    private volatile boolean lockTableGenerated;

    TestDatabase(String url, String user, String password, String dialect) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.dialect = dialect;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    /** @return Hibernate's dialect for this database */
    public String dialect() {
        return dialect;
    }

    /** @return whether Locked ships a schema script (and native statements) for this database */
    public boolean hasSchemaScript() {
        return this != DERBY && this != HSQLDB;
    }

    /** @return the JDBC URL (for MYSQL8 the private server's, which this starts if need be) */
    public String url() {
        return privateServer() ? PrivateMySql8.server().url() : url;
    }

    /** @return the user */
    public String user() {
        return privateServer() ? PrivateMySql8.server().user() : user;
    }

    /** @return the user's password */
    public String password() {
        return privateServer() ? PrivateMySql8.server().password() : password;
    }

    private boolean privateServer() {
        return this == MYSQL8 && url.isEmpty();
    }

    /** @return what a worker JVM's environment needs to reach this same database */
    public Map<String, String> workerEnvironment() {
        String prefix = "LOCKED_" + name() + "_";
        return Map.of(prefix + "URL", url(), prefix + "USER", user(), prefix + "PASSWORD", password());
    }

    /**
     * Fails under CI=true, skips elsewhere, when the server does not answer (for MYSQL8: when its
     * private server cannot be started).
     */
    public void requireReachable() {
        try (Connection ignored = connect()) {
            // reachable
        } catch (SQLException e) {
            String reason = this + " is not reachable at " + url() + ": " + e.getMessage();
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                throw new AssertionError(reason + " (CI=true: a missing database fails the build; run .ci/run)", e);
            }
            Assumptions.abort(reason);
        }
    }

    /** @return a plain JDBC connection, outside any pool */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url(), user(), password());
    }

    /**
     * @param maxConnections pool size
     * @return a Hikari pool on this database
     */
    public HikariDataSource pool(int maxConnections) {
        return pool(maxConnections, Map.of());
    }

    /**
     * @param maxConnections   pool size
     * @param driverProperties extra properties of the JDBC driver
     * @return a Hikari pool on this database
     */
    public HikariDataSource pool(int maxConnections, Map<String, String> driverProperties) {
        HikariConfig config = new HikariConfig();
        driverProperties.forEach(config::addDataSourceProperty);
        config.setJdbcUrl(url());
        config.setUsername(user());
        config.setPassword(password());
        config.setMaximumPoolSize(maxConnections);
        config.setPoolName("locked-" + name().toLowerCase());
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /**
     * @param dataSource the pool
     * @return an EntityManagerFactory of the test unit on that pool
     */
    public EntityManagerFactory entityManagerFactory(HikariDataSource dataSource) {
        return entityManagerFactory(dataSource, UNIT);
    }

    /**
     * @param dataSource the pool
     * @param unit       the name of a persistence unit of the tests
     * @return an EntityManagerFactory of that unit on that pool
     */
    public EntityManagerFactory entityManagerFactory(HikariDataSource dataSource, String unit) {
        return entityManagerFactory(dataSource, unit, TestProvider.HIBERNATE);
    }

    /**
     * @param dataSource the pool
     * @param unit       the name of a persistence unit of the tests
     * @param provider   the JPA provider of the unit
     * @return an EntityManagerFactory of that unit on that pool
     */
    public EntityManagerFactory entityManagerFactory(HikariDataSource dataSource, String unit, TestProvider provider) {
        convertEarlierLockTable(dataSource);
        return unitOn(dataSource, unit, provider);
    }

    /**
     * @param dataSource a pool of the test's own, which the unit neither starts nor closes
     * @param provider   the JPA provider of the unit
     * @return an EntityManagerFactory of the provider's test unit on that pool
     */
    public EntityManagerFactory entityManagerFactory(DataSource dataSource, TestProvider provider) {
        convertEarlierLockTable(dataSource);
        return unitOn(dataSource, provider.unit(this), provider);
    }

    private EntityManagerFactory unitOn(DataSource dataSource, String unit, TestProvider provider) {
        Map<String, Object> properties = new HashMap<>(provider.properties(this));
        properties.put("jakarta.persistence.nonJtaDataSource", dataSource);
        if (!hasSchemaScript() && !lockTableGenerated) {
            // Locked ships no script for these: the provider makes the table from the entity, once
            // per JVM (the database lives as long as the JVM), as a user of such a database would
            properties.put("jakarta.persistence.schema-generation.database.action", "create");
            lockTableGenerated = true;
            if (this == DERBY) {
                boundDerbyLockWaits(dataSource);
            }
        }
        return Persistence.createEntityManagerFactory(unit, properties);
    }

    /**
     * Derby bounds a lock wait only by its database properties (Hibernate's lock timeout hint and a
     * query timeout do not reach a wait there): a second, as its users set it, and the lock manager
     * tries again within the caller's wait.
     */
    private static void boundDerbyLockWaits(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.waitTimeout', '1')");
            statement.execute("CALL SYSCS_UTIL.SYSCS_SET_DATABASE_PROPERTY('derby.locks.deadlockTimeout', '1')");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot set Derby's lock wait", e);
        }
    }

    /**
     * The test databases of CI machines keep their lock table from run to run. One made by an earlier
     * MariaDB script (a key column that pads trailing spaces, which the repository refuses) is
     * converted once per JVM, as an operator would.
     */
    void convertEarlierLockTable(DataSource dataSource) {
        if (this != MARIADB || lockTableConverted) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
             PreparedStatement padding = connection.prepareStatement("SELECT table_name FROM information_schema.columns"
                     + " WHERE table_schema = DATABASE() AND table_name IN ('locked_lock', 'locked_fence')"
                     + " AND column_name = 'lock_key' AND collation_name <> 'utf8mb4_nopad_bin'");
             ResultSet found = padding.executeQuery()) {
            while (found.next()) {
                try (Statement convert = connection.createStatement()) {
                    convert.execute(found.getString(1).equalsIgnoreCase("locked_fence")
                            ? MARIADB_FENCE_TABLE_CONVERSION : MARIADB_LOCK_TABLE_CONVERSION);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot convert the lock table of " + this + " at " + url(), e);
        }
        lockTableConverted = true;
    }

    /**
     * A pool, an EntityManagerFactory and a repository with its table created.
     *
     * @param maxConnections pool size
     * @return the store, to be closed by the caller
     */
    public Store open(int maxConnections) {
        return open(maxConnections, Map.of());
    }

    /**
     * @param maxConnections   pool size
     * @param driverProperties extra properties of the JDBC driver
     * @return the store, to be closed by the caller
     */
    public Store open(int maxConnections, Map<String, String> driverProperties) {
        return open(maxConnections, driverProperties, UnaryOperator.identity());
    }

    /**
     * @param maxConnections   pool size
     * @param driverProperties extra properties of the JDBC driver
     * @param settings         settings of the repository beyond its unit
     * @return the store, to be closed by the caller
     */
    public Store open(int maxConnections, Map<String, String> driverProperties,
                      UnaryOperator<JpaLockRepository.Builder> settings) {
        return open(maxConnections, driverProperties, settings, TestProvider.HIBERNATE);
    }

    /**
     * @param maxConnections   pool size
     * @param driverProperties extra properties of the JDBC driver
     * @param settings         settings of the repository beyond its unit
     * @param provider         the JPA provider of the unit
     * @return the store, to be closed by the caller
     */
    public Store open(int maxConnections, Map<String, String> driverProperties,
                      UnaryOperator<JpaLockRepository.Builder> settings, TestProvider provider) {
        requireReachable();
        return open(pool(maxConnections, driverProperties), settings, provider);
    }

    /**
     * A store of this family on a server of the test's own (a private server with options or a clock
     * of its own), with Hibernate; its checks of open transactions still look at the shared server.
     *
     * @param url            the private server's JDBC URL
     * @param maxConnections pool size
     * @param settings       settings of the repository beyond its unit
     * @return the store, to be closed by the caller
     */
    public Store openAt(String url, String user, String password, int maxConnections,
                        UnaryOperator<JpaLockRepository.Builder> settings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(maxConnections);
        config.setPoolName("locked-private-" + name().toLowerCase());
        config.setConnectionTimeout(10_000);
        HikariDataSource pool = new HikariDataSource(config);
        // a new server has no lock table of an earlier script to convert
        return open(pool, unitOn(pool, TestProvider.HIBERNATE.unit(this), TestProvider.HIBERNATE), settings);
    }

    private Store open(HikariDataSource pool, UnaryOperator<JpaLockRepository.Builder> settings, TestProvider provider) {
        return open(pool, entityManagerFactory(pool, provider.unit(this), provider), settings);
    }

    private Store open(HikariDataSource pool, EntityManagerFactory factory, UnaryOperator<JpaLockRepository.Builder> settings) {
        try {
            JpaLockRepository repository = settings.apply(JpaLockRepository.builder(factory)).build();
            if (hasSchemaScript()) {
                repository.createTableIfMissing();
            }
            return new Store(this, TestPool.of(pool), factory, repository);
        } catch (RuntimeException | Error refused) {
            // a store that does not start leaves no unit nor pool behind
            factory.close();
            pool.close();
            throw refused;
        }
    }
}
