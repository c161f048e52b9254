package io.locked.jpa.internal.dialect;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.connection.LockConnections;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/** Finds which {@link LockDatabase} a persistence unit talks to, once, at start-up, by asking the {@link Dialects}. */
public final class DatabaseDetection {
    private DatabaseDetection() {
    }

    /**
     * @throws IllegalStateException         if the database has no statements in Locked
     * @throws LockStoreUnavailableException if it had to be asked and did not answer
     */
    public static LockDatabase detect(EntityManagerFactory factory, LockConnections connections) {
        Dialect dialect = Dialects.named(String.valueOf(factory.getProperties()));
        if (dialect == null) {
            // a data source hides the URL: ask the driver which product it talks to
            String product = ask(connections, "name", DatabaseMetaData::getDatabaseProductName);
            dialect = Dialects.named(product);
            if (dialect == null) {
                throw new IllegalStateException("Locked has no statements for " + product
                        + "; it supports MySQL 8, MariaDB, PostgreSQL and H2");
            }
        }
        if (dialect.needsServerVersion()) {
            dialect = dialect.byServerVersion(ask(connections, "version", DatabaseMetaData::getDatabaseProductVersion));
        }
        return dialect.family();
    }

    /**
     * @return the database a URL, dialect or product name names, null if none; a name of the MySQL
     *         family ("mysql", "mariadb") is MARIADB here until the server's version says which of
     *         the two it is ({@link #mySqlFamily})
     */
    public static LockDatabase fromText(String text) {
        Dialect dialect = Dialects.named(text);
        return dialect == null ? null : dialect.family();
    }

    /**
     * @param product the driver's product name ({@code DatabaseMetaData.getDatabaseProductName})
     * @param version the driver's product version, which tells MariaDB from MySQL
     * @return the database, or null where Locked has no statements for it
     */
    public static LockDatabase fromProduct(String product, String version) {
        Dialect dialect = Dialects.named(product);
        if (dialect != null && dialect.needsServerVersion()) {
            dialect = dialect.byServerVersion(version);
        }
        return dialect == null ? null : dialect.family();
    }

    /** MariaDB or MySQL, by the server's version as the driver reports it. */
    static LockDatabase mySqlFamily(String serverVersion) {
        return Dialect.of(LockDatabase.MARIADB).byServerVersion(serverVersion).family();
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
            // a database that is down, not one without statements: the lock store is created again at the next lock
            throw new LockStoreUnavailableException("(start-up)", "reading the database's " + what
                    + " to choose its statements failed; Locked tries again at the next lock", unreachable);
        }
    }
}
