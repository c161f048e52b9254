package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/** Finds which {@link LockDatabase} a persistence unit talks to, once, at start-up. */
final class DatabaseDetection {
    private DatabaseDetection() {
    }

    static LockDatabase detect(EntityManagerFactory factory, LockConnections connections) {
        LockDatabase database = fromText(String.valueOf(factory.getProperties()));
        if (database == null) {
            // a data source hides the URL: ask the driver which product it talks to
            String product = ask(connections, "name", DatabaseMetaData::getDatabaseProductName);
            database = fromText(product);
            if (database == null) {
                throw new IllegalStateException("Locked has no statements for " + product
                        + "; it supports MariaDB, PostgreSQL and H2");
            }
        }
        if (database == LockDatabase.MARIADB) {
            // Connector/J speaks to MySQL and MariaDB alike, and its URL says jdbc:mysql: for both
            requireMariaDb(ask(connections, "version", DatabaseMetaData::getDatabaseProductVersion));
        }
        return database;
    }

    static LockDatabase fromText(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("jdbc:h2:") || lower.contains("h2dialect") || lower.equals("h2")) {
            return LockDatabase.H2;
        }
        if (lower.contains("jdbc:postgresql:") || lower.contains("postgresqldialect") || lower.contains("postgresplus")
                || lower.equals("postgresql")) {
            return LockDatabase.POSTGRESQL;
        }
        if (lower.contains("jdbc:mysql:") || lower.contains("jdbc:mariadb:")
                || lower.contains("mysqldialect") || lower.contains("mariadbdialect")
                || lower.equals("mysql") || lower.equals("mariadb")) {
            return LockDatabase.MARIADB;
        }
        return null;
    }

    /**
     * The MySQL-family statements use MariaDB's syntax ({@code SET STATEMENT ... FOR},
     * {@code INSERT ... RETURNING}); on MySQL they would fail at the first lock, so refuse at start-up.
     */
    static void requireMariaDb(String serverVersion) {
        if (!serverVersion.toLowerCase(Locale.ROOT).contains("mariadb")) {
            throw new IllegalStateException("This server reports version " + serverVersion + ", which is not MariaDB:"
                    + " Locked's MySQL-family statements use MariaDB syntax (SET STATEMENT, INSERT ... RETURNING),"
                    + " and MySQL is not supported yet");
        }
    }

    private interface MetaData {
        String read(DatabaseMetaData metaData) throws SQLException;
    }

    private static String ask(LockConnections connections, String what, MetaData question) {
        try {
            Connection connection = connections.open();
            try {
                return question.read(connection.getMetaData());
            } finally {
                connections.close(connection);
            }
        } catch (SQLException unreachable) {
            throw new IllegalStateException("Cannot read the database's " + what + " (" + unreachable
                    + "); pass a LockDatabase to JpaLockRepository explicitly", unreachable);
        }
    }
}
