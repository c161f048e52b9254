package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The connections of a Hibernate persistence unit that was configured with a JDBC URL (Hibernate's
 * own pool, or the pool it was told to use). Only loaded when Hibernate is present. A provider
 * backed by a data source (HikariCP's, Agroal's) is used through that data source.
 */
final class HibernateConnections implements LockConnections, LendingThreads.Pool {
    // Hibernate's built-in pool answers at once, and fails when it is exhausted: it never waits
    private static final String BUILT_IN_POOL =
            "org.hibernate.engine.jdbc.connections.internal.DriverManagerConnectionProviderImpl";
    private final ConnectionProvider provider;
    private final boolean neverWaits;

    private HibernateConnections(ConnectionProvider provider) {
        this.provider = provider;
        this.neverWaits = provider.getClass().getName().equals(BUILT_IN_POOL);
    }

    static boolean available() {
        try {
            Class.forName("org.hibernate.engine.spi.SessionFactoryImplementor", false,
                    HibernateConnections.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError absent) {
            return false;
        }
    }

    static LockConnections of(EntityManagerFactory factory) {
        ConnectionProvider provider = factory.unwrap(SessionFactoryImplementor.class).getServiceRegistry()
                .requireService(ConnectionProvider.class);
        if (provider.isUnwrappableAs(DataSource.class)) {
            return LockConnections.of(provider.unwrap(DataSource.class));
        }
        return new HibernateConnections(provider);
    }

    @Override
    public Connection open() throws SQLException {
        return provider.getConnection();
    }

    @Override
    public Connection open(long waitNanos) throws SQLException {
        return neverWaits ? provider.getConnection() : LendingThreads.borrow(this, waitNanos);
    }

    @Override
    public Connection borrow() throws SQLException {
        return provider.getConnection();
    }

    @Override
    public void giveBack(Connection connection) throws SQLException {
        provider.closeConnection(connection);
    }

    @Override
    public void close(Connection connection) throws SQLException {
        provider.closeConnection(connection);
    }

    @Override
    public String describe() {
        return "the Hibernate connection provider " + provider.getClass().getName() + " (its size unknown to Locked)";
    }
}
