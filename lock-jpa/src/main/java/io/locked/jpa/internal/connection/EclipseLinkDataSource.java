package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The data source of an EclipseLink unit that a container created with one: Payara hands the unit's
 * {@code <jta-data-source>} to EclipseLink as an object, which EclipseLink keeps in its login's
 * connector and never shows among the unit's properties. Reached by reflection, as EclipseLink may
 * not be on the class path: {@code Session.getDatasourceLogin().getConnector().getDataSource()}.
 *
 * <p>Why not Jakarta Persistence 3.2's {@code EntityManager.runWithConnection}: it lends the
 * connection of an entity manager's transaction, a JTA one on a server, which Locked may neither
 * commit nor keep past that transaction; a pessimistic hold needs a connection whose transaction is
 * Locked's own.
 */
final class EclipseLinkDataSource {
    private static final String SESSION = "org.eclipse.persistence.sessions.Session";

    private EclipseLinkDataSource() {
    }

    /**
     * @return the unit's data source, empty where its provider is not EclipseLink or EclipseLink was
     *         given a JDBC URL (its own connections, which Locked cannot borrow)
     */
    static Optional<DataSource> of(EntityManagerFactory factory) {
        EntityManager manager = factory.createEntityManager();
        try {
            Class<?> sessionType = Class.forName(SESSION, false, manager.getClass().getClassLoader());
            Object session = manager.unwrap(sessionType);
            Object login = sessionType.getMethod("getDatasourceLogin").invoke(session);
            Object connector = login.getClass().getMethod("getConnector").invoke(login);
            // a JNDIConnector; the DefaultConnector of a unit configured by URL has no such method
            Object dataSource = connector.getClass().getMethod("getDataSource").invoke(connector);
            return dataSource instanceof DataSource found ? Optional.of(found) : Optional.empty();
        } catch (ReflectiveOperationException | RuntimeException | LinkageError notEclipseLinkOrNoDataSource) {
            return Optional.empty();
        } finally {
            manager.close();
        }
    }
}
