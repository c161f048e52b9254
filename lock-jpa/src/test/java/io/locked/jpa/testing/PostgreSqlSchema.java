package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * A PostgreSQL schema of one test's own, for a lock table the test alters or locks (a trigger, a
 * table lock) where no other test may meet it: created empty, with a store on it that creates the
 * table, and dropped with everything in it at the end.
 */
public final class PostgreSqlSchema implements AutoCloseable {
    private final String name;
    private final Store store;

    private PostgreSqlSchema(String name, Store store) {
        this.name = name;
        this.store = store;
    }

    /** Drops a schema of that name left by an earlier run, creates it, and opens a store on it. */
    public static PostgreSqlSchema create(String name, int poolSize) throws SQLException {
        TestDatabase.POSTGRESQL.requireReachable();
        execute("DROP SCHEMA IF EXISTS " + name + " CASCADE", "CREATE SCHEMA " + name);
        return new PostgreSqlSchema(name, TestDatabase.POSTGRESQL.open(poolSize, Map.of("currentSchema", name)));
    }

    public Store store() {
        return store;
    }

    /** Runs statements on a connection of their own, outside the store's pool. */
    public static void execute(String... statements) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRESQL.connect(); Statement sql = connection.createStatement()) {
            for (String statement : statements) {
                sql.execute(statement);
            }
        }
    }

    @Override
    public void close() throws SQLException {
        try {
            store.close();
        } finally {
            execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
        }
    }
}
