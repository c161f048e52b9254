package io.locked.jpa;

import io.locked.api.LockStoreUnavailableException;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.EntityTransaction;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceException;
import jakarta.persistence.Query;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The lock rows in a JPA persistence unit (resource-local transactions). The unit must include
 * {@link LockRow}; the table comes from the schema script of its {@link LockDatabase}
 * ({@link #createTableIfMissing()} runs it).
 */
public class JpaLockRepository implements LockRepository {
    private static final String LOCK_TIMEOUT_HINT = "jakarta.persistence.lock.timeout";
    private final EntityManagerFactory factory;
    private final LockDatabase database;

    /**
     * @param factory the persistence unit holding the lock table; its database is detected
     */
    public JpaLockRepository(EntityManagerFactory factory) {
        this(factory, DatabaseDetection.detect(requireFactory(factory)));
    }

    /**
     * @param factory  the persistence unit holding the lock table
     * @param database which statements to use
     */
    public JpaLockRepository(EntityManagerFactory factory, LockDatabase database) {
        this.factory = requireFactory(factory);
        if (database == null) {
            throw new IllegalArgumentException("LockDatabase must not be null");
        }
        this.database = database;
    }

    private static EntityManagerFactory requireFactory(EntityManagerFactory factory) {
        if (factory == null) {
            throw new IllegalArgumentException("EntityManagerFactory must not be null");
        }
        return factory;
    }

    /** @return the database family in use */
    public LockDatabase database() {
        return database;
    }

    /** Creates the lock table from the shipped script if it does not exist (for demos and tests). */
    public void createTableIfMissing() {
        String script = readScript(database.schemaResource);
        storeCall("(schema)", "creating the lock table", em -> {
            for (String statement : script.split(";")) {
                String sql = statement.lines().filter(line -> !line.trim().startsWith("--"))
                        .reduce("", (a, b) -> a + "\n" + b).trim();
                if (!sql.isEmpty()) {
                    em.createNativeQuery(sql).executeUpdate();
                }
            }
            return null;
        });
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        EntityManager em = factory.createEntityManager();
        EntityTransaction transaction = em.getTransaction();
        boolean handedOver = false;
        try {
            LockRow row = lockRow(em, transaction, key, dbWait);
            if (row == null) {
                // missing: create it in a transaction of its own, then queue for it like everyone else
                Transactions.rollbackQuietly(transaction);
                ensureRow(key);
                row = lockRow(em, transaction, key, dbWait);
                if (row == null) {
                    return null; // deleted by a cleanup in between: the caller tries again
                }
            }
            int drawn = em.createNativeQuery(database.drawToken)
                    .setParameter("key", key).setParameter("holder", holder).executeUpdate();
            if (drawn == 0) {
                return null; // a live optimistic lease holds the key
            }
            long token = ((Number) em.createNativeQuery(database.readToken)
                    .setParameter("key", key).getSingleResult()).longValue();
            handedOver = true;
            return new JpaPessimisticHold(em, transaction, token);
        } catch (PersistenceException failure) {
            if (LockConflicts.isBusy(failure)) {
                return null;
            }
            throw new LockStoreUnavailableException(key, "pessimistic lock failed", failure);
        } finally {
            if (!handedOver) {
                Transactions.rollbackQuietly(transaction);
                em.close();
            }
        }
    }

    private LockRow lockRow(EntityManager em, EntityTransaction transaction, String key, Duration dbWait) {
        transaction.begin();
        int hint = database.prepareLockWait(em, dbWait.toMillis());
        return em.find(LockRow.class, key, LockModeType.PESSIMISTIC_WRITE, Map.of(LOCK_TIMEOUT_HINT, hint));
    }

    private void ensureRow(String key) {
        try {
            Transactions.inNewTransaction(factory,
                    em -> em.createNativeQuery(database.insertIfAbsent).setParameter("key", key).executeUpdate());
        } catch (PersistenceException raceOrFailure) {
            // a concurrent insert of the same key is fine; any other failure shows on the next read
            if (!LockConflicts.isBusy(raceOrFailure) && !isDuplicate(raceOrFailure)) {
                throw new LockStoreUnavailableException(key, "creating the lock row failed", raceOrFailure);
            }
        }
    }

    private static boolean isDuplicate(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("23")) {
                return true;
            }
        }
        return false;
    }

    @Override
    public Lease takeLease(String key, String owner, String holder, Duration lease) {
        Lease taken = tryTake(key, owner, holder, lease);
        if (taken == null && !rowExists(key)) {
            ensureRow(key);
            taken = tryTake(key, owner, holder, lease);
        }
        return taken;
    }

    private Lease tryTake(String key, String owner, String holder, Duration lease) {
        try {
            return storeCall(key, "taking the lease", em -> {
                int taken = em.createNativeQuery(database.takeLease).setParameter("key", key)
                        .setParameter("owner", owner).setParameter("holder", holder)
                        .setParameter("micros", micros(lease)).executeUpdate();
                if (taken == 0) {
                    return null;
                }
                Object[] row = (Object[]) em.createNativeQuery(database.readLease)
                        .setParameter("key", key).setParameter("owner", owner).getSingleResult();
                return new Lease(key, owner, ((Number) row[0]).longValue(), ((Number) row[1]).longValue());
            });
        } catch (LockStoreUnavailableException failure) {
            if (LockConflicts.isBusy(failure)) {
                return null;
            }
            throw failure;
        }
    }

    private boolean rowExists(String key) {
        return storeCall(key, "reading the lock row", em -> !em.createNativeQuery(database.readToken)
                .setParameter("key", key).getResultList().isEmpty());
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        int renewed = storeCall(lease.key(), "renewing the lease", em -> ownerWrite(em, database.renewLease, lease)
                .setParameter("micros", micros(duration)).executeUpdate());
        return renewed == 0 ? null : new Lease(lease.key(), lease.owner(), lease.token(), lease.version() + 1);
    }

    @Override
    public boolean releaseLease(Lease lease) {
        return storeCall(lease.key(), "releasing the lease", em -> {
            if (ownerWrite(em, database.releaseLease, lease).executeUpdate() == 1) {
                return true;
            }
            // expired but not taken over: still ours to free, though the holder must learn it was lost
            em.createNativeQuery(database.freeOwnExpiredLease)
                    .setParameter("key", lease.key()).setParameter("owner", lease.owner()).executeUpdate();
            return false;
        });
    }

    private Query ownerWrite(EntityManager em, String sql, Lease lease) {
        return em.createNativeQuery(sql).setParameter("key", lease.key())
                .setParameter("owner", lease.owner()).setParameter("version", lease.version());
    }

    @Override
    public int deleteIdleRows(Duration idleFor) {
        if (idleFor == null || idleFor.isNegative() || idleFor.isZero()) {
            throw new IllegalArgumentException("Idle time must be positive, was " + idleFor);
        }
        long minusIdle = -micros(idleFor);
        @SuppressWarnings("unchecked")
        List<String> candidates = storeCall("(cleanup)", "finding idle rows", em -> em
                .createNativeQuery(database.idleKeys).setParameter("micros", minusIdle).getResultList());
        int deleted = 0;
        for (String key : candidates) {
            deleted += deleteIfStillIdle(key, minusIdle);
        }
        return deleted;
    }

    // One short transaction per row that skips rows locked right now, so a cleanup never makes an
    // acquirer wait and never waits behind a holder.
    private int deleteIfStillIdle(String key, long minusIdle) {
        EntityManager em = factory.createEntityManager();
        EntityTransaction transaction = em.getTransaction();
        try {
            if (lockRow(em, transaction, key, Duration.ZERO) == null) {
                return 0;
            }
            int deleted = em.createNativeQuery(database.deleteIdle).setParameter("key", key)
                    .setParameter("micros", minusIdle).executeUpdate();
            transaction.commit();
            return deleted;
        } catch (PersistenceException failure) {
            if (LockConflicts.isBusy(failure)) {
                return 0;
            }
            throw new LockStoreUnavailableException(key, "deleting an idle row failed", failure);
        } finally {
            Transactions.rollbackQuietly(transaction);
            em.close();
        }
    }

    private <T> T storeCall(String key, String what, Function<EntityManager, T> work) {
        try {
            return Transactions.inNewTransaction(factory, work);
        } catch (PersistenceException failure) {
            throw new LockStoreUnavailableException(key, what + " failed", failure);
        }
    }

    private static long micros(Duration duration) {
        return duration.toNanos() / 1000;
    }

    private static String readScript(String resource) {
        try (InputStream in = JpaLockRepository.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Schema script " + resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + resource, e);
        }
    }
}
