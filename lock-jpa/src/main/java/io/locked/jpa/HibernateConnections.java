package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.hibernate.HibernateException;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The connections of a Hibernate persistence unit that was configured with a JDBC URL (Hibernate's
 * own pool, or the pool it was told to use). Only loaded when Hibernate is present.
 *
 * <p>Hibernate's providers fail with HibernateException as well as SQLException: an exhausted
 * built-in pool, for one, throws at once. Both come out as SQLException, which the repository turns
 * into a LockException naming the key; an unchecked one becomes a
 * {@link SQLTransientConnectionException}, as a pool that timed out reports it.
 */
final class HibernateConnections implements LockConnections {
    private final ConnectionProvider provider;

    private HibernateConnections(ConnectionProvider provider) {
        this.provider = provider;
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
        return new HibernateConnections(provider);
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
    public void close(Connection connection) throws SQLException {
        try {
            provider.closeConnection(connection);
        } catch (HibernateException notReturned) {
            throw new SQLException("Hibernate did not take the connection back: " + notReturned.getMessage(),
                    notReturned);
        }
    }
}
