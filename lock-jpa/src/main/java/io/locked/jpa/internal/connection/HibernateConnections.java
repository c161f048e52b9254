package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.hibernate.HibernateException;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.spi.SessionImplementor;

/**
 * The connections of a Hibernate persistence unit that was configured with a JDBC URL (Hibernate's
 * own pool, or the pool it was told to use). Only loaded when Hibernate is present ({@link HibernatePresence}). A provider
 * backed by a data source (HikariCP's, Agroal's) is used through that data source.
 *
 * <p>Hibernate's providers fail with HibernateException as well as SQLException: an exhausted
 * built-in pool, for one, throws at once. Both come out as SQLException, which the repository turns
 * into a LockException naming the key; an unchecked one becomes a
 * {@link SQLTransientConnectionException}, as a pool that timed out reports it, and the built-in
 * pool's "no connection available" a {@link NoFreeConnection}: not acquired, like any drained pool.
 */
public final class HibernateConnections implements LockConnections, LendingThreads.Pool {
    // Hibernate's built-in pool answers at once, and fails when it is exhausted: it never waits
    private static final String BUILT_IN_POOL =
            "org.hibernate.engine.jdbc.connections.internal.DriverManagerConnectionProviderImpl";
    private final ConnectionProvider provider;
    private final boolean neverWaits;

    private HibernateConnections(ConnectionProvider provider) {
        this.provider = provider;
        this.neverWaits = provider.getClass().getName().equals(BUILT_IN_POOL);
    }

    static LockConnections of(EntityManagerFactory factory) {
        ConnectionProvider provider = sessionFactory(factory).getServiceRegistry().requireService(ConnectionProvider.class);
        if (provider.isUnwrappableAs(DataSource.class)) {
            return LockConnections.of(provider.unwrap(DataSource.class));
        }
        return new HibernateConnections(provider);
    }

    /**
     * The unit's Hibernate session factory, reached through an entity manager: a factory produced as
     * a normal-scoped CDI bean is a client proxy, whose {@code unwrap} hands back the proxy itself
     * (Weld: {@code ClassCastException ... WeldClientProxy cannot be cast to SessionFactoryImplementor}).
     * Creating the entity manager opens no connection.
     */
    public static SessionFactoryImplementor sessionFactory(EntityManagerFactory factory) {
        if (factory instanceof SessionFactoryImplementor direct) {
            return direct;
        }
        EntityManager manager = factory.createEntityManager();
        try {
            return manager.unwrap(SessionImplementor.class).getFactory();
        } catch (RuntimeException otherProvider) {
            // Hibernate is on the class path, but this unit's provider is another one (EclipseLink)
            throw new IllegalStateException("Locked cannot find the connections of this persistence unit: its provider ("
                    + manager.getClass().getName() + ") is not Hibernate ORM and it was given no DataSource as"
                    + " jakarta.persistence.nonJtaDataSource", otherProvider);
        } finally {
            manager.close();
        }
    }

    @Override
    public Connection open() throws SQLException {
        try {
            return provider.getConnection();
        } catch (HibernateException noConnection) {
            throw new SQLTransientConnectionException("Hibernate gave no connection: " + noConnection.getMessage(),
                    noConnection);
        }
    }

    @Override
    public Connection open(long waitNanos) throws SQLException {
        if (!neverWaits) {
            return LendingThreads.borrow(this, waitNanos);
        }
        try {
            return provider.getConnection();
        } catch (HibernateException noConnection) {
            // the built-in pool throws a plain HibernateException when it is exhausted, and a
            // JDBCException (a subclass) when the database failed
            if (noConnection.getClass() == HibernateException.class) {
                throw new NoFreeConnection(describe());
            }
            throw new SQLTransientConnectionException("Hibernate gave no connection: " + noConnection.getMessage(),
                    noConnection);
        }
    }

    @Override
    public Connection borrow() throws SQLException {
        return open();
    }

    @Override
    public void giveBack(Connection connection) throws SQLException {
        close(connection);
    }

    @Override
    public void close(Connection connection) throws SQLException {
        try {
            provider.closeConnection(connection);
        } catch (HibernateException notReturned) {
            throw new SQLException("Hibernate did not take the connection back: " + notReturned.getMessage(),
                    notReturned);
        }
    }

    @Override
    public String describe() {
        return "the Hibernate connection provider " + provider.getClass().getName() + " (its size unknown to Locked)";
    }
}
