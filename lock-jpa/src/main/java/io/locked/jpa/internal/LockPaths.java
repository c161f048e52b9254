package io.locked.jpa.internal;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.StandbyCommits;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.HibernatePresence;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.DatabaseDetection;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.GaleraNode;
import io.locked.jpa.internal.dialect.DerbyTimeBindingCheck;
import io.locked.jpa.internal.dialect.HsqldbSettingsCheck;
import io.locked.jpa.internal.dialect.SharedRowStatements;
import io.locked.jpa.internal.entitypath.DatabaseClock;
import io.locked.jpa.internal.entitypath.EntityLockRepository;
import io.locked.jpa.internal.entitypath.EntityMappingCheck;
import io.locked.jpa.internal.entitypath.RowLocksWithoutWaiting;
import io.locked.jpa.internal.nativepath.NativeLockRepository;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.LockRepository;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Which of the two paths locks a unit's rows ({@link LockStatements}), chosen once at start-up with
 * the checks that path needs: the native path where the database has a dialect and its connections
 * can be reached, the JPA path everywhere else.
 *
 * @param connections  the unit's connections, null where Locked cannot reach them
 * @param database     the database, null where it has no dialect
 * @param statements   the path chosen
 * @param path         the repository of that path
 * @param galeraForJpa on the JPA path, the Galera node the unit talks to, if it is one
 */
public record LockPaths(LockConnections connections, LockDatabase database, LockStatements statements,
                        LockRepository path, Optional<GaleraNode> galeraForJpa) {
    private static final Logger LOG = Logger.getLogger(LockPaths.class.getName());

    /**
     * Chooses the path and runs its start-up checks.
     *
     * @param factory            the lock table's persistence unit
     * @param database           the database as configured, or null to detect it
     * @param requested          the path as configured ({@link LockStatements#AUTO}: native where it can run)
     * @param galeraSingleWriter whether the user declared a single writer node on Galera
     * @param connectionWait     how long an acquisition waits for a pooled connection
     * @param tokens             whether pessimistic releases commit their tokens
     * @param standbyWait        the {@code synchronous_commit} of the lock's durable writes on PostgreSQL, or null
     * @param transactions       the unit's own transactions, for the JPA path's checks
     */
    public static LockPaths choose(EntityManagerFactory factory, LockDatabase database, LockStatements requested,
                                   boolean galeraSingleWriter, Duration connectionWait, LockTokens tokens,
                                   StandbyCommits standbyWait, UnitTransactions transactions) {
        String noConnections = null;
        LockConnections connections = null;
        try {
            connections = LockConnections.of(factory);
        } catch (IllegalStateException unreachable) {
            noConnections = unreachable.getMessage();
        }
        String noStatements = null;
        LockDatabase family = database;
        if (family == null && connections != null) {
            try {
                family = DatabaseDetection.detect(factory, connections);
            } catch (IllegalStateException noNative) {
                // a database that did not answer says nothing about its statements: that failure goes up
                noStatements = noNative.getMessage();
            }
        } else if (family == null) {
            family = DatabaseDetection.fromText(String.valueOf(factory.getProperties()));
        }
        LockStatements statements = switch (requested) {
            case NATIVE -> {
                if (connections == null) {
                    throw new IllegalStateException(LockStatements.KEY + "=native: " + noConnections);
                }
                if (family == null) {
                    throw new IllegalStateException(LockStatements.KEY + "=native: " + noStatements
                            + ". Use " + LockStatements.KEY + "=auto or jpa, which lock through JPA itself");
                }
                yield LockStatements.NATIVE;
            }
            case JPA -> LockStatements.JPA;
            case AUTO -> {
                if (connections != null && family != null) {
                    yield LockStatements.NATIVE;
                }
                String reason = connections == null ? noConnections : noStatements;
                LOG.info(() -> "Locked locks through JPA (" + LockStatements.KEY + "=jpa): " + reason);
                yield LockStatements.JPA;
            }
        };
        if (statements == LockStatements.NATIVE) {
            LOG.info("Locked locks with its own statements (" + LockStatements.KEY + "=native) on " + family
                    + ", on the connections of " + connections.describe());
            Dialect dialect = standbyWait == null ? Dialect.of(family) : Dialect.of(family).withStandbyWait(standbyWait);
            String whyNot = !dialect.readsTokenClockAfterRowLock()
                    ? dialect + "'s native statements read their token clock before the row lock"
                    : dialect + "'s forced release reads a hold and ends its session in two statements, between"
                            + " which a hold released by a rollback could lend its session to other work";
            TokenWrites tokenWrites = tokenWrites(tokens, dialect.readsTokenClockAfterRowLock()
                    && dialect.readsAndEndsHoldsInOneStep(), whyNot);
            return new LockPaths(connections, family, statements,
                    new NativeLockRepository(connections, dialect, galeraSingleWriter, connectionWait, tokenWrites),
                    Optional.empty());
        }
        if (standbyWait != null) {
            throw new IllegalStateException(StandbyCommits.KEY + "=" + standbyWait.level() + " needs Locked's native statements on"
                    + " PostgreSQL, and this lock store locks through JPA (" + LockStatements.KEY + "=jpa"
                    + (requested == LockStatements.AUTO ? ", chosen because the native path cannot run here" : "")
                    + "). Remove the setting, or use " + LockStatements.KEY + "=native");
        }
        if (family == null) {
            HsqldbSettingsCheck.requireRowLocks(factory, connections, transactions);
            DerbyTimeBindingCheck.requireOwnCalendars(factory, connections);
        } else if (connections != null) {
            Dialect.of(family).checkLockTable(connections); // a table the provider generated may compare keys loosely
        }
        EntityMappingCheck.verify(factory, Dialect.of(family), transactions);
        LockRepository path = new EntityLockRepository(factory, DatabaseClock.of(Dialect.of(family), factory),
                transactions, connections, connectionWait, tokenWrites(tokens, transactions.rollbackTellsLostSession(),
                        "a JTA transaction manager may report no failure for a rollback that failed"),
                rowLocksWithoutWaiting(factory, family, connections, transactions),
                family != null && Dialect.of(family).rowLockWaitsInWholeSeconds());
        // row locks are per Galera node on this path too; it has no per-lock node check, so only the
        // single-writer declaration makes pessimistic locks safe
        Optional<GaleraNode> galera = family != null && Dialect.of(family).mayBeGaleraNode() && connections != null
                ? Optional.ofNullable(GaleraNode.detect(connections, galeraSingleWriter, CallBounds.brief()))
                : Optional.empty();
        return new LockPaths(connections, family, statements, path, galera);
    }

    /**
     * @return how the JPA path locks a row without waiting ({@link RowLocksWithoutWaiting}): a read/write lock's
     *         shared row, a key's own row on a zero wait; or why it cannot
     */
    private static RowLocksWithoutWaiting rowLocksWithoutWaiting(EntityManagerFactory factory, LockDatabase family,
                                                                 LockConnections connections, UnitTransactions transactions) {
        // connections Locked reaches already told the database, if it knows it
        LockDatabase database = family != null || connections != null ? family : askedThroughTheUnit(factory, transactions);
        SharedRowStatements statements = database == null ? null : SharedRowStatements.of(Dialect.of(database));
        if (statements == null) {
            return RowLocksWithoutWaiting.refused(SharedRowStatements.refusal(database == null ? "This database" : database.name()),
                    SharedRowStatements.ownRow(database));
        }
        return HibernatePresence.isProviderOf(factory) ? RowLocksWithoutWaiting.throughLockModes()
                : RowLocksWithoutWaiting.byStatements(statements);
    }

    /**
     * The database, asked through the connection the provider lends in a transaction of the unit
     * (EclipseLink's {@code EntityManager.unwrap(Connection.class)}), where Locked cannot reach the unit's
     * connections otherwise (a JTA data source on Payara). Used for the shared row's statements only.
     *
     * @return the database, or null where the provider lends no connection or Locked has no statements for it
     */
    private static LockDatabase askedThroughTheUnit(EntityManagerFactory factory, UnitTransactions transactions) {
        EntityManager manager = factory.createEntityManager();
        try {
            transactions.begin(manager);
            Connection connection = manager.unwrap(Connection.class);
            if (connection == null) {
                LOG.info("Locked cannot tell this unit's database (its provider lends no connection in a transaction):"
                        + " PESSIMISTIC read/write locks are refused on it");
                return null;
            }
            DatabaseMetaData about = connection.getMetaData();
            String product = about.getDatabaseProductName();
            String version = about.getDatabaseProductVersion();
            LockDatabase database = DatabaseDetection.fromProduct(product, version);
            if (database == null) {
                LOG.info(() -> "Locked has no shared row lock for this unit's database (" + product + " " + version
                        + "): PESSIMISTIC read/write locks are refused on it");
            }
            return database;
        } catch (RuntimeException | SQLException lendsNone) {
            LOG.info(() -> "Locked cannot tell this unit's database (" + lendsNone + "): PESSIMISTIC read/write locks"
                    + " are refused on it");
            return null;
        } finally {
            try {
                transactions.rollbackIfActive(manager);
            } finally {
                manager.close();
            }
        }
    }

    /**
     * Clock tokens where the path can keep them. Where it cannot tell a lost hold from a rollback, or a
     * later token from an earlier one without the commit, its releases commit as with written tokens,
     * which start-up says once.
     *
     * @param keepsClockTokens whether the path can roll its releases back
     * @param whyNot           what keeps it from doing so, for the log
     */
    private static TokenWrites tokenWrites(LockTokens tokens, boolean keepsClockTokens, String whyNot) {
        if (tokens == LockTokens.CLOCK && !keepsClockTokens) {
            LOG.info(() -> LockTokens.KEY + "=clock: " + whyNot + ", so pessimistic releases commit their tokens as"
                    + " with written tokens");
            return TokenWrites.of(LockTokens.WRITTEN);
        }
        return TokenWrites.of(tokens);
    }

    /** Refuses a unit that does not map the lock row, naming how to list it. */
    public static void requireLockRow(EntityManagerFactory factory) {
        try {
            factory.getMetamodel().entity(LockRow.class);
        } catch (IllegalArgumentException notListed) {
            throw new IllegalStateException("The lock table's persistence unit does not map " + LockRow.class.getName()
                    + ": list it in persistence.xml (<class>" + LockRow.class.getName() + "</class>), or on Quarkus"
                    + " put it in the unit's packages (quarkus.hibernate-orm.packages=io.locked.jpa)", notListed);
        }
    }
}
