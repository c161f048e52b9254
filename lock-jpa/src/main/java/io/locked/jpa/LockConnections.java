package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/**
 * Where the lock statements get their JDBC connections: from the persistence unit's own pool. The
 * lock's statements run as plain JDBC on those connections, because an EntityManager and its
 * transaction cost more than the statements themselves (see the README's Performance section).
 */
interface LockConnections {
    // the names under which providers expose a data source handed to the persistence unit
    List<String> DATA_SOURCE_PROPERTIES = List.of("jakarta.persistence.nonJtaDataSource",
            "javax.persistence.nonJtaDataSource", "hibernate.connection.datasource");

    Connection open() throws SQLException;

    void close(Connection connection) throws SQLException;

    static LockConnections of(EntityManagerFactory factory) {
        for (String property : DATA_SOURCE_PROPERTIES) {
            if (factory.getProperties().get(property) instanceof DataSource dataSource) {
                return of(dataSource);
            }
        }
        if (HibernateConnections.available()) {
            return HibernateConnections.of(factory);
        }
        throw new IllegalStateException("Locked cannot find the connections of this persistence unit: hand it its"
                + " DataSource as jakarta.persistence.nonJtaDataSource, or use Hibernate ORM");
    }

    static LockConnections of(DataSource dataSource) {
        return new LockConnections() {
            @Override
            public Connection open() throws SQLException {
                return dataSource.getConnection();
            }

            @Override
            public void close(Connection connection) throws SQLException {
                connection.close();
            }
        };
    }
}
