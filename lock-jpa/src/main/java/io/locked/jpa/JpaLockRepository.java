package io.locked.jpa;

import io.locked.api.LockMode;
import io.locked.jpa.internal.LockPaths;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.GaleraNode;
import io.locked.jpa.internal.entitypath.EntityMappingCheck;
import io.locked.jpa.internal.schema.SchemaScript;
import io.locked.jpa.internal.transaction.TransactionManagerLookup;
import io.locked.jpa.internal.transaction.UnitTransactions;
import io.locked.spi.LockRepository;
import jakarta.persistence.EntityManagerFactory;
import jakarta.transaction.TransactionManager;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock rows ({@link LockRow}) of a JPA persistence unit: the {@link LockRepository} that
 * {@code @Locked} and {@link io.locked.api.LockManagerBuilder} run on. Two paths lock the rows
 * ({@link LockStatements}): the JPA path, through the {@code EntityManager} only, on any provider and
 * database; and the native path, statements written for the unit's database ({@link LockDatabase}),
 * on a connection of the unit's pool. By default the native path runs where the database has
 * statements and its connections can be reached, the JPA path everywhere else.
 *
 * <p>Every JVM sharing a lock table should use the same path: they write the same columns, but
 * the paths read the database's clock differently.
 */
public final class JpaLockRepository extends PathOutsideCaller {
    /**
     * How long an acquisition may wait for a pooled connection, and for a connection that
     * pessimistic locks may take, unless set otherwise ({@link Builder#connectionWait}). Long enough
     * for a neighbour's lock call, a commit's fsync or a pause of the JVM to give one back, so that a
     * wait of zero is not refused for a momentary shortage; short enough that a pool that is really
     * too small is reported before a caller who asked not to wait notices.
     */
    public static final Duration DEFAULT_CONNECTION_WAIT = Duration.ofMillis(500);
    private final LockStatements statements;
    /** The database's native statements, if it has some, also when the JPA path runs. */
    private final LockDatabase database;
    /** The unit's connections, null where Locked cannot reach them (only the JPA path runs then). */
    private final LockConnections connections;
    private final Optional<GaleraNode> galeraForJpa;
    private final EntityManagerFactory factory;
    private final UnitTransactions unitTransactions;

    /**
     * A repository with every setting at its default; {@link #builder} sets the others. Locked takes its
     * connections from the data source handed to the unit ({@code jakarta.persistence.nonJtaDataSource})
     * or, with Hibernate ORM, from its connection provider.
     *
     * @param factory the persistence unit holding the lock table; its database is detected
     * @throws IllegalStateException if the lock table is there but would not compare keys exactly
     *                               (the message names the statement that converts it)
     */
    public JpaLockRepository(EntityManagerFactory factory) {
        this(builder(factory));
    }

    private JpaLockRepository(Builder settings) {
        this(settings, startUp(settings));
    }

    private JpaLockRepository(Builder settings, StartUp startUp) {
        super(startUp.paths().path(), startUp.transactions().caller());
        this.factory = settings.factory;
        this.unitTransactions = startUp.transactions().unit();
        LockPaths paths = startUp.paths();
        this.connections = paths.connections();
        this.database = paths.database();
        this.statements = paths.statements();
        this.galeraForJpa = paths.galeraForJpa();
    }

    private record StartUp(TransactionManagerLookup.LockTransactions transactions, LockPaths paths) {
    }

    private static StartUp startUp(Builder settings) {
        LockPaths.requireLockRow(settings.factory);
        TransactionManagerLookup.LockTransactions transactions = TransactionManagerLookup.apiPresent()
                ? TransactionManagerLookup.of(settings.factory, settings.transactionManager)
                : TransactionManagerLookup.LockTransactions.RESOURCE_LOCAL;
        // the start-up checks are lock work too: on a server, never in a transaction of the deployment's
        LockPaths paths = transactions.caller().outside(() -> LockPaths.choose(settings.factory, settings.database,
                settings.statements, settings.galeraSingleWriter, settings.connectionWait, settings.tokens,
                settings.synchronousCommit, transactions.unit()));
        return new StartUp(transactions, paths);
    }

    /**
     * The settings of a repository beyond its persistence unit.
     *
     * @param factory the persistence unit holding the lock table
     * @return a builder whose {@link Builder#build()} makes the repository
     */
    public static Builder builder(EntityManagerFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("EntityManagerFactory must not be null");
        }
        return new Builder(factory);
    }

    /** Settings of a {@link JpaLockRepository}; each has the default of the plain constructor. */
    public static final class Builder {
        private final EntityManagerFactory factory;
        private LockDatabase database;
        private boolean galeraSingleWriter;
        private TransactionManager transactionManager;
        private LockStatements statements = LockStatements.AUTO;
        private LockTokens tokens = LockTokens.WRITTEN;
        private StandbyCommits synchronousCommit;
        private Duration connectionWait = DEFAULT_CONNECTION_WAIT;

        private Builder(EntityManagerFactory factory) {
            this.factory = factory;
        }

        /**
         * @param statements which database's statements to use, instead of detecting the database
         * @return this builder
         */
        public Builder database(LockDatabase statements) {
            if (statements == null) {
                throw new IllegalArgumentException("LockDatabase must not be null");
            }
            this.database = statements;
            return this;
        }

        /**
         * Which path locks the rows (config: {@code locked.statements}); {@link LockStatements#AUTO}
         * unless set.
         *
         * @param path native statements, JPA, or native where the database has them
         * @return this builder
         */
        public Builder statements(LockStatements path) {
            if (path == null) {
                throw new IllegalArgumentException("LockStatements must not be null");
            }
            this.statements = path;
            return this;
        }

        /**
         * How a pessimistic acquisition's token is kept (config: {@code locked.tokens}):
         * {@link LockTokens#WRITTEN} unless set. {@link LockTokens#CLOCK} saves the durable write of
         * most pessimistic cycles, and assumes the database's clock does not step back.
         *
         * @param tokens written, or the database's clock
         * @return this builder
         */
        public Builder tokens(LockTokens tokens) {
            if (tokens == null) {
                throw new IllegalArgumentException("LockTokens must not be null");
            }
            this.tokens = tokens;
            return this;
        }

        /**
         * On PostgreSQL, how long the lock's writes that must survive a crash or failover wait at their
         * commit (config: {@code locked.postgresql.synchronous-commit}): takes, renewals, hand-overs,
         * releases that keep a minimum hold, pessimistic holders' tokens and forced releases. Set for
         * the lock's own transaction only, so that with a synchronous standby the lock's commits wait
         * for it while the application's follow the session's setting. A lease's plain release, whose
         * loss only delays the key, still does not wait. Unset, the lock's commits follow the
         * session's setting. Native statements on PostgreSQL only: refused elsewhere at build.
         *
         * @param level the level of PostgreSQL's {@code synchronous_commit}
         * @return this builder
         */
        public Builder postgresqlSynchronousCommit(StandbyCommits level) {
            if (level == null) {
                throw new IllegalArgumentException("StandbyCommits must not be null");
            }
            this.synchronousCommit = level;
            return this;
        }

        /**
         * How long an acquisition may wait for a pooled connection, and, where the pool's size is
         * known, for one of the connections that pessimistic locks may take (all but one), whatever
         * the caller's own wait (config: {@code locked.connection-wait}); {@link #DEFAULT_CONNECTION_WAIT}
         * unless set. An acquisition waits for a connection for its own wait or this, whichever is
         * longer, and for another holder within its own wait only: it ends by its wait plus this at
         * most. Past it, the acquisition ends with a {@link io.locked.api.LockNotAcquiredException} of
         * reason {@code NO_CONNECTION}.
         *
         * @param wait zero or more
         * @return this builder
         */
        public Builder connectionWait(Duration wait) {
            if (wait == null || wait.isNegative()) {
                throw new IllegalArgumentException("The connection wait must be zero or more, was " + wait);
            }
            this.connectionWait = wait;
            return this;
        }

        /**
         * On a MariaDB Galera cluster, pessimistic locks are refused unless every JVM's lock
         * statements reach one and the same node (config: {@code locked.galera.single-writer}).
         *
         * @param singleWriter true when they do: through a single-writer proxy, or one node's address
         * @return this builder
         */
        public Builder galeraSingleWriter(boolean singleWriter) {
            this.galeraSingleWriter = singleWriter;
            return this;
        }

        /**
         * The transaction manager that sets a caller's JTA transaction aside while the lock works, and
         * runs the lock's own transactions on a JTA unit. Without one, Locked asks the JPA provider
         * (Hibernate's JTA platform, EclipseLink's target server) and the servers' JNDI names.
         *
         * @param transactions the server's or application's transaction manager
         * @return this builder
         */
        public Builder transactionManager(TransactionManager transactions) {
            if (transactions == null) {
                throw new IllegalArgumentException("TransactionManager must not be null");
            }
            this.transactionManager = transactions;
            return this;
        }

        /**
         * @return the repository
         * @throws IllegalStateException if the lock table is there but would not compare keys exactly
         *                               (the message names the statement that converts it), or the
         *                               database is an HSQLDB on which locks would not exclude with bounded waits
         * @throws io.locked.api.LockStoreUnavailableException if the database must be asked which it is and does not answer
         */
        public JpaLockRepository build() {
            return new JpaLockRepository(this);
        }
    }

    /** @return the database family with native statements, whichever path runs; empty for any other database */
    public Optional<LockDatabase> database() {
        return Optional.ofNullable(database);
    }

    /** @return the path that locks the rows: {@link LockStatements#NATIVE} or {@link LockStatements#JPA} */
    public LockStatements statements() {
        return statements;
    }

    /**
     * Creates the lock table, and the fence table of {@link LockFence}, from the shipped script where
     * they do not exist (for demos and tests; use your migrations in production). On a database
     * without a script, let the provider generate the table from {@link LockRow}
     * ({@code jakarta.persistence.schema-generation.database.action}).
     *
     * @throws IllegalStateException if Locked has no script for the database, or cannot reach its
     *                               connections; on the JPA path, if the unit cannot store the lock
     *                               row's times (the message names the mapping file it needs)
     */
    public void createTableIfMissing() {
        if (database == null || connections == null) {
            throw new IllegalStateException("Locked has no schema script for this persistence unit's database"
                    + (connections == null ? " or cannot reach its connections" : "")
                    + ": let the provider create the table from io.locked.jpa.LockRow"
                    + " (jakarta.persistence.schema-generation.database.action=create), or create it with your migrations");
        }
        caller.outside(() -> {
            SchemaScript.createTablesIfMissing(connections, Dialect.of(database));
            if (statements == LockStatements.JPA) {
                EntityMappingCheck.verify(factory, Dialect.of(database), unitTransactions);
            }
        });
    }

    /**
     * Checks that the lock table exists, so that a missing one fails the start rather than every lock.
     * @throws IllegalStateException if the database answers without it, naming the script to run
     */
    public void requireLockTable() {
        if (caller.outside(() -> SchemaScript.lockTableMissing(connections))) {
            throw new IllegalStateException(LockSchema.missingTableAdvice(database));
        }
    }

    @Override
    public Optional<String> refusal(LockMode mode) {
        return statements == LockStatements.NATIVE ? path.refusal(mode)
                : galeraForJpa.flatMap(node -> node.refusal(mode));
    }

    /** The path's: where the database or the provider has no shared row lock, with its reason. */
    @Override
    public Optional<String> noSharedRowLocks() {
        return path.noSharedRowLocks();
    }
}
