package io.locked.jpa.internal.connection;

import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Where the lock statements get their JDBC connections: from the persistence unit's own pool. The
 * lock's statements run as plain JDBC on those connections, because an EntityManager and its
 * transaction cost more than the statements themselves (see docs/performance.md).
 *
 * <p>Every borrow of a lock call is bounded by that call's wait ({@link #open(long)}): HikariCP is
 * told the wait itself; a pool that cannot be told lends through a thread of its own
 * ({@link LendingThreads}); Hibernate's built-in pool never waits.
 */
public interface LockConnections {
    // the names under which providers expose a data source handed to the persistence unit
    List<String> DATA_SOURCE_PROPERTIES = List.of("jakarta.persistence.nonJtaDataSource",
            "javax.persistence.nonJtaDataSource", "hibernate.connection.datasource");

    /** Borrows with the pool's own waiting, for start-up checks. */
    Connection open() throws SQLException;

    /**
     * Borrows within a lock call's wait.
     *
     * @param waitNanos how long the caller may wait for a connection
     * @throws NoFreeConnection if none was free within the wait
     * @throws SQLException     if the pool or the database failed
     */
    Connection open(long waitNanos) throws SQLException;

    void close(Connection connection) throws SQLException;

    /**
     * Gives back a connection that must not be lent again (its session was ended or it could not
     * be rolled back), after its driver connection was aborted: by default the pool finds it closed.
     */
    default void discard(Connection connection) throws SQLException {
        close(connection);
    }

    /** @return the pool's maximum size, or 0 where Locked cannot know it */
    default int maximumSize() {
        return 0;
    }

    /** @return how many of the pool's connections are lent out now, empty where Locked cannot know it */
    default java.util.OptionalInt inUse() {
        return java.util.OptionalInt.empty();
    }

    /** @return the pool, for a warning: its name, size and state where known */
    String describe();

    static LockConnections of(EntityManagerFactory factory) {
        for (String property : DATA_SOURCE_PROPERTIES) {
            if (factory.getProperties().get(property) instanceof DataSource dataSource) {
                return of(dataSource);
            }
        }
        // before Hibernate's: an application may have both on its class path, its unit EclipseLink's
        Optional<DataSource> eclipseLink = EclipseLinkSessions.dataSource(factory);
        if (eclipseLink.isPresent()) {
            return of(eclipseLink.get());
        }
        if (HibernatePresence.onClassPath()) {
            return HibernateConnections.of(factory);
        }
        throw new IllegalStateException("Locked cannot find the connections of this persistence unit: hand it its"
                + " DataSource as jakarta.persistence.nonJtaDataSource (or, on a server, as its jta-data-source),"
                + " or use Hibernate ORM");
    }

    static LockConnections of(DataSource dataSource) {
        LockConnections hikari = HikariPools.ifHikari(dataSource);
        return hikari != null ? hikari : new LentConnections(dataSource);
    }
}
