package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.connection.LockConnections;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Locale;

/** Finds which {@link LockDatabase} a persistence unit talks to, once, at start-up. */
public final class DatabaseDetection {
    private DatabaseDetection() {
    }

    public static LockDatabase detect(EntityManagerFactory factory, LockConnections connections) {
        LockDatabase database = fromText(String.valueOf(factory.getProperties()));
        if (database == null) {
            // a data source hides the URL: ask the driver which product it talks to
            String product = ask(connections, "name", DatabaseMetaData::getDatabaseProductName);
            database = fromText(product);
            if (database == null) {
                throw new IllegalStateException("Locked has no statements for " + product
                        + "; it supports MySQL 8, MariaDB, PostgreSQL and H2");
            }
        }
        if (database == LockDatabase.MARIADB) {
            // Connector/J speaks to MySQL and MariaDB alike, its URL says jdbc:mysql: for both, and
            // users set MySQLDialect on MariaDB too: only the server's version tells them apart
            database = mySqlFamily(ask(connections, "version", DatabaseMetaData::getDatabaseProductVersion));
        }
        return database;
    }

    /**
     * A URL, dialect or product name of the MySQL family ("mysql", "mariadb") is MARIADB here until
     * the server's version says which of the two it is ({@link #mySqlFamily}).
     */
    public static LockDatabase fromText(String text) {
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
     * MariaDB or MySQL, by the server's version as the driver reports it: MariaDB's always names
     * MariaDB ("5.5.5-10.11.19-MariaDB-0+deb12u1" through Connector/J, "11.4.2-MariaDB"), MySQL's
     * never does ("8.0.15").
     */
    public static LockDatabase mySqlFamily(String serverVersion) {
        return String.valueOf(serverVersion).toLowerCase(Locale.ROOT).contains("mariadb")
                ? LockDatabase.MARIADB : LockDatabase.MYSQL;
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
