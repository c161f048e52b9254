package io.locked.jpa;

import io.locked.api.LockMode;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.Optional;

/**
 * The lock rows ({@link LockRow}) of a JPA persistence unit: the {@link LockRepository} that
 * {@code @Locked} and {@link io.locked.api.LockManagerBuilder} run on. It locks through the
 * statements of the unit's database ({@link LockDatabase}), the native path.
 */
public final class JpaLockRepository implements LockRepository {
    private final NativeLockRepository path;

    /**
     * @param factory the persistence unit holding the lock table; its database is detected
     * @throws IllegalStateException if the lock table is there but would not compare keys exactly
     *                               (the message names the statement that converts it)
     */
    public JpaLockRepository(EntityManagerFactory factory) {
        this(builder(factory));
    }

    /**
     * Locked takes its connections from the data source handed to the unit
     * ({@code jakarta.persistence.nonJtaDataSource}) or, with Hibernate ORM, from its connection provider.
     *
     * @param factory  the persistence unit holding the lock table
     * @param database which statements to use
     * @throws IllegalStateException if the lock table is there but would not compare keys exactly
     *                               (the message names the statement that converts it)
     */
    public JpaLockRepository(EntityManagerFactory factory, LockDatabase database) {
        this(builder(factory).database(database));
    }

    private JpaLockRepository(Builder settings) {
        LockConnections connections = LockConnections.of(settings.factory);
        LockDatabase database = settings.database != null ? settings.database
                : DatabaseDetection.detect(settings.factory, connections);
        this.path = new NativeLockRepository(connections, database, settings.galeraSingleWriter);
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
         * @return the repository
         * @throws IllegalStateException if the database cannot be detected, or the lock table is
         *                               there but would not compare keys exactly (the message names
         *                               the statement that converts it)
         */
        public JpaLockRepository build() {
            return new JpaLockRepository(this);
        }
    }

    /** @return the database whose statements lock the rows */
    public Optional<LockDatabase> database() {
        return Optional.of(path.database());
    }

    /**
     * Creates the lock table, and the fence table of {@link LockFence}, from the shipped script where
     * they do not exist (for demos and tests; use your migrations in production).
     */
    public void createTableIfMissing() {
        path.createTableIfMissing();
    }

    @Override
    public Optional<String> refusal(LockMode mode) {
        return path.refusal(mode);
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        return path.lockPessimistic(key, owner, holder, dbWait);
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
        return path.takeLease(key, owner, holder, lease, dbWait);
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        return path.renewLease(lease, duration);
    }

    @Override
    public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
        return path.handOverLease(lease, newOwner, holder, duration);
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return path.releaseLease(lease);
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        return path.deleteIdleRows(idleFor);
    }
}
