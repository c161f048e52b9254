package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.connection.LockConnections;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;

/** Whether a persistence unit's database is one that the JPA path checks at start-up (HSQLDB, Derby). */
final class UnitDatabaseName {
    private UnitDatabaseName() {
    }

    /**
     * @param properties  the unit's properties
     * @param connections its connections, or null where Locked cannot reach them
     * @param urlPrefix   the database's JDBC URL prefix, such as {@code jdbc:derby:}
     * @param dialect     a word of its Hibernate dialect's name, such as {@code derbydialect}
     * @param product     a word of its JDBC product name, such as {@code derby}
     * @return whether the URL, the dialect or, asked last, the database names it
     */
    static boolean names(Map<String, Object> properties, LockConnections connections, String urlPrefix, String dialect,
            String product) {
        String text = String.valueOf(properties).toLowerCase(Locale.ROOT);
        if (text.contains(urlPrefix) || text.contains(dialect)) {
            return true;
        }
        if (connections == null) {
            return false;
        }
        try {
            Connection connection = connections.open();
            try {
                return connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT).contains(product);
            } finally {
                connections.close(connection);
            }
        } catch (SQLException unreachable) {
            throw new IllegalStateException("Cannot read the database's name (" + unreachable + ")", unreachable);
        }
    }
}
