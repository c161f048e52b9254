package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What Locked reads from an EclipseLink unit's session, by reflection, as EclipseLink may not be on
 * the class path: the data source a container created the unit with (here), and the server's
 * transaction manager ({@code TransactionManagerLookup}).
 */
public final class EclipseLinkSessions {
    private static final String SESSION = "org.eclipse.persistence.sessions.Session";

    private EclipseLinkSessions() {
    }

    /** One reading of a session, given as an object of {@code org.eclipse.persistence.sessions.Session}. */
    public interface Reading<T> {
        T from(Object session, Class<?> sessionType) throws ReflectiveOperationException;
    }

    /**
     * @return what the reading found in the unit's session; empty where the provider is not EclipseLink,
     *         or the reading found nothing or failed
     */
    public static <T> Optional<T> read(EntityManagerFactory factory, Reading<T> reading) {
        EntityManager manager = factory.createEntityManager();
        try {
            Class<?> sessionType = Class.forName(SESSION, false, manager.getClass().getClassLoader());
            return Optional.ofNullable(reading.from(manager.unwrap(sessionType), sessionType));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError notEclipseLink) {
            return Optional.empty();
        } finally {
            manager.close();
        }
    }

    /**
     * The data source of a unit that a container created with one: Payara hands the unit's
     * {@code <jta-data-source>} to EclipseLink as an object, which EclipseLink keeps in its login's
     * connector and never shows among the unit's properties:
     * {@code Session.getDatasourceLogin().getConnector().getDataSource()}.
     *
     * <p>Why not Jakarta Persistence 3.2's {@code EntityManager.runWithConnection}: it lends the
     * connection of an entity manager's transaction, a JTA one on a server, which Locked may neither
     * commit nor keep past that transaction; a pessimistic hold needs a connection whose transaction is
     * Locked's own.
     *
     * @return the unit's data source, empty where its provider is not EclipseLink or EclipseLink was
     *         given a JDBC URL (its own connections, which Locked cannot borrow)
     */
    static Optional<DataSource> dataSource(EntityManagerFactory factory) {
        return read(factory, (session, sessionType) -> {
            Object login = sessionType.getMethod("getDatasourceLogin").invoke(session);
            Object connector = login.getClass().getMethod("getConnector").invoke(login);
            // a JNDIConnector; the DefaultConnector of a unit configured by URL has no such method
            Object dataSource = connector.getClass().getMethod("getDataSource").invoke(connector);
            return dataSource instanceof DataSource found ? found : null;
        });
    }
}
