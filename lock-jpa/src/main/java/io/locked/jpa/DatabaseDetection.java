package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** Finds which {@link LockDatabase} a persistence unit talks to, once, at start-up. */
final class DatabaseDetection {
    private DatabaseDetection() {
    }

    static LockDatabase detect(EntityManagerFactory factory, LockConnections connections) {
        LockDatabase fromProperties = fromText(String.valueOf(factory.getProperties()));
        if (fromProperties != null) {
            return fromProperties;
        }
        return probe(connections);
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
            return LockDatabase.MYSQL;
        }
        return null;
    }

    // A data source hides the URL: ask the driver which product it talks to.
    private static LockDatabase probe(LockConnections connections) {
        String product;
        try {
            Connection connection = connections.open();
            try {
                product = connection.getMetaData().getDatabaseProductName();
            } finally {
                connections.close(connection);
            }
        } catch (SQLException unreachable) {
            throw new IllegalStateException("Cannot tell which database the persistence unit uses (" + unreachable
                    + "); pass a LockDatabase to JpaLockRepository explicitly", unreachable);
        }
        LockDatabase database = fromText(product);
        if (database == null) {
            throw new IllegalStateException("Locked has no statements for " + product
                    + "; it supports MySQL/MariaDB, PostgreSQL and H2");
        }
        return database;
    }
}
