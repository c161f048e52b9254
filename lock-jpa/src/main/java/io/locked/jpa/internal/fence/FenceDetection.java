package io.locked.jpa.internal.fence;

import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.Dialects;
import io.locked.jpa.internal.dialect.FenceStatements;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which {@link FenceStatements} a caller's transaction needs, found once per database product (for
 * a connection) or per persistence unit (for an EntityManager) and then read from a cache.
 */
public final class FenceDetection {
    private static final Map<String, FenceStatements> BY_PRODUCT = new ConcurrentHashMap<>();
    // weak: a closed unit must not be kept alive by its entry
    private static final Map<EntityManagerFactory, FenceStatements> BY_UNIT =
            Collections.synchronizedMap(new WeakHashMap<>());

    private FenceDetection() {
    }

    /** The statements for a connection, from the driver's metadata (read locally by the common drivers). */
    public static FenceStatements of(Connection connection) throws SQLException {
        DatabaseMetaData metaData = connection.getMetaData();
        String product = String.valueOf(metaData.getDatabaseProductName());
        Dialect dialect = Dialects.named(product);
        if (dialect == null || !dialect.needsServerVersion()) {
            return BY_PRODUCT.computeIfAbsent(product, ignored -> forFamily(dialect, false));
        }
        // Connector/J calls MariaDB and MySQL both "MySQL": the product's name or its version tells them apart
        return dialect.byServerVersion(product + " " + metaData.getDatabaseProductVersion()).fence(false);
    }

    /**
     * The statements for an EntityManager of this unit: from the unit's properties (its URL or
     * dialect) or, when they do not tell, from one of its connections' metadata.
     */
    public static FenceStatements of(EntityManagerFactory factory) {
        FenceStatements known = BY_UNIT.get(factory);
        if (known == null) {
            known = forFamily(dialectOf(factory), true);
            BY_UNIT.put(factory, known);
        }
        return known;
    }

    private static Dialect dialectOf(EntityManagerFactory factory) {
        Dialect named = Dialects.named(String.valueOf(factory.getProperties()));
        if (named != null) {
            return named;
        }
        try {
            LockConnections connections = LockConnections.of(factory);
            Connection connection = connections.open();
            try {
                return Dialects.named(String.valueOf(connection.getMetaData().getDatabaseProductName()));
            } finally {
                connections.close(connection);
            }
        } catch (SQLException | IllegalStateException unknown) {
            // no way to ask: the standard statements work on any database
            return null;
        }
    }

    /**
     * An EntityManager runs every statement that returns rows as a query, which Connector/J refuses
     * for an INSERT: MariaDB through an EntityManager uses the MySQL form.
     */
    private static FenceStatements forFamily(Dialect dialect, boolean throughEntityManager) {
        return dialect == null ? FenceStatements.PORTABLE : dialect.fence(throughEntityManager);
    }
}
