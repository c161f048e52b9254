package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import org.hibernate.engine.jdbc.connections.spi.ConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The connections of a Hibernate persistence unit that was configured with a JDBC URL (Hibernate's
 * own pool, or the pool it was told to use). Only loaded when Hibernate is present.
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
        return provider.getConnection();
    }

    @Override
    public void close(Connection connection) throws SQLException {
        provider.closeConnection(connection);
    }
}
