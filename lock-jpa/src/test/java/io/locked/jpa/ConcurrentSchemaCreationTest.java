package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.schema.SchemaScript;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * JVMs that start at once on a new database each create the lock and fence tables from the shipped
 * script ({@code createTableIfMissing}, {@code locked.create-table=true}). On PostgreSQL two sessions'
 * {@code CREATE TABLE IF NOT EXISTS} of one table at one moment make one of them fail with a
 * duplicate {@code pg_type} row (seen in the failover test's worker JVMs): every creator must
 * succeed all the same. Each round starts the creators on a database of its own, created for it.
 */
class ConcurrentSchemaCreationTest {
    private static final int ROUNDS = 5;
    private static final int CREATORS = 6;

    @Test
    void creatorsStartingAtOnceOnANewPostgreSqlDatabaseAllSucceed() throws Exception {
        TestDatabase.POSTGRESQL.requireReachable();
        ExecutorService creators = Executors.newFixedThreadPool(CREATORS);
        try {
            for (int round = 0; round < ROUNDS; round++) {
                String database = "locked_schema_race_" + ProcessHandle.current().pid() + "_" + round;
                administer("DROP DATABASE IF EXISTS " + database);
                administer("CREATE DATABASE " + database);
                try {
                    createAtOnce(creators, database);
                    assertEquals(List.of("locked_fence", "locked_lock"), tables(database), "round " + round);
                } finally {
                    administer("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
                }
            }
        } finally {
            creators.shutdownNow();
        }
    }

    private static void createAtOnce(ExecutorService creators, String database) throws Exception {
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> created = new ArrayList<>();
        for (int each = 0; each < CREATORS; each++) {
            created.add(creators.submit(() -> {
                LockConnections connections = LockConnections.of(dataSource(database));
                start.await();
                SchemaScript.createTablesIfMissing(connections, Dialect.of(LockDatabase.POSTGRESQL));
                return null;
            }));
        }
        start.countDown();
        for (Future<?> creator : created) {
            creator.get(60, TimeUnit.SECONDS); // throws the creator's failure, if it failed
        }
    }

    private static PGSimpleDataSource dataSource(String database) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setURL(TestDatabase.POSTGRESQL.url().replace("/locked_test", "/" + database));
        dataSource.setUser(TestDatabase.POSTGRESQL.user());
        dataSource.setPassword(TestDatabase.POSTGRESQL.password());
        return dataSource;
    }

    private static List<String> tables(String database) throws SQLException {
        try (Connection connection = dataSource(database).getConnection(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
                     + " ORDER BY tablename")) {
            List<String> names = new ArrayList<>();
            while (rows.next()) {
                names.add(rows.getString(1));
            }
            return names;
        }
    }

    private static void administer(String statement) throws SQLException {
        try (Connection connection = DriverManager.getConnection(TestDatabase.POSTGRESQL.url(),
                TestDatabase.POSTGRESQL.user(), TestDatabase.POSTGRESQL.password());
             Statement run = connection.createStatement()) {
            run.execute(statement);
        }
    }
}
