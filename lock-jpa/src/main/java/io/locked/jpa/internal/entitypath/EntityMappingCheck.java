package io.locked.jpa.internal.entitypath;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.transaction.UnitTransactions;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Logger;

/**
 * Refuses, at start-up, a persistence unit whose provider would read or write the lock row wrongly,
 * before the JPA path relies on it. It writes a row in a transaction it rolls back and reads back what
 * the database holds:
 * <ul>
 *   <li>the times: a provider of Jakarta Persistence 3.1 without a mapping for {@link Instant}
 *   (EclipseLink 4 writes it serialized, which the database refuses or garbles), or one that shifts a
 *   MySQL {@code DATETIME} into the JVM's zone, is told the mapping file it needs;</li>
 *   <li>the key: a provider that reads a binary key column as something else than the key it wrote
 *   (EclipseLink reads MySQL's {@code VARBINARY} as hexadecimal digits) would never find a lock's row again;</li>
 *   <li>the key's comparison: a column that ignores trailing spaces (a MySQL or MariaDB table generated
 *   with the database's default collation) would make {@code 'k'} and {@code 'k '} one lock. Where
 *   Locked reaches the unit's connections, the dialect's table check ({@code Dialect.checkLockTable}) names the exact collation first.</li>
 * </ul>
 * A unit whose table is not there yet is checked when {@code JpaLockRepository.createTableIfMissing()} made it.
 */
public final class EntityMappingCheck {
    private static final Logger LOG = Logger.getLogger(EntityMappingCheck.class.getName());
    private static final int BUSY_TRIES = 3;
    // a whole second, so that a driver that drops fractions (Connector/J to MariaDB) still stores it exactly
    private static final Instant PROBE_TIME = Instant.parse("2001-02-03T04:05:06Z");

    private EntityMappingCheck() {
    }

    /**
     * @param factory the unit
     * @param family  its database, where Locked knows it
     * @param transactions how the lock runs its own transactions on the unit
     * @throws IllegalStateException naming what the unit or its table needs
     */
    public static void verify(EntityManagerFactory factory, Dialect family, UnitTransactions transactions) {
        for (int tried = 1; ; tried++) {
            try {
                verify(factory, family, transactions, probeKey());
                return;
            } catch (BusyProbe busy) {
                if (tried == BUSY_TRIES) {
                    // says nothing about the mapping; another JVM of the same unit checks it too
                    LOG.info(() -> "Locked skipped its start-up check of the lock row's mapping: the table was busy ("
                            + busy.getMessage() + ")");
                    return;
                }
            }
        }
    }

    /**
     * A key no lock can have (requests refuse a blank key), and no other JVM's check: 64 random
     * spaces and tabs, so that concurrent start-ups never insert the same row (MariaDB would make
     * one of them a deadlock victim). It ends in a tab and a space, which the padding check drops.
     */
    private static String probeKey() {
        long bits = ThreadLocalRandom.current().nextLong();
        StringBuilder key = new StringBuilder(66);
        for (int bit = 0; bit < 64; bit++) {
            key.append((bits >>> bit & 1) == 0 ? ' ' : '\t');
        }
        return key.append("\t ").toString();
    }

    /** The probe met another transaction's lock: nothing learnt about the mapping. */
    private static final class BusyProbe extends RuntimeException {
        BusyProbe(Throwable cause) {
            super(String.valueOf(cause.getMessage()), cause, false, false);
        }
    }

    private static void verify(EntityManagerFactory factory, Dialect family, UnitTransactions transactions,
                               String probeKey) {
        EntityManager manager = factory.createEntityManager();
        List<?> readBack;
        boolean padded;
        // as text where Locked can read the database's text of a time; a projection reads the columns afresh
        String time = family == null ? "r.acquiredAt" : "FUNCTION('concat', '', r.acquiredAt)";
        try {
            transactions.begin(manager);
            if (!tableAnswers(manager, probeKey)) {
                return; // no table yet (createTableIfMissing checks again), or no database: the lock calls will say
            }
            LockRow probe = LockRowAccess.rows().newRow(probeKey);
            LockRowAccess.rows().lockedBy(probe, 0, PROBE_TIME, "Locked's start-up check");
            manager.persist(probe);
            manager.flush();
            readBack = manager.createQuery("SELECT r.key, " + time + " FROM LockRow r WHERE r.key = :key")
                    .setParameter("key", probeKey).getResultList();
            padded = ((Number) manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :key")
                    .setParameter("key", probeKey.substring(0, probeKey.length() - 1)).getSingleResult()).longValue() > 0;
        } catch (RuntimeException refused) {
            if (EntityConflicts.isBusy(refused)) {
                throw new BusyProbe(refused);
            }
            throw new IllegalStateException("The persistence unit cannot store " + LockRow.class.getName()
                    + "'s times (" + rootMessage(refused) + "). " + mappingAdvice(family), refused);
        } finally {
            transactions.rollbackIfActive(manager);
            manager.close();
        }
        Object[] row = readBack.isEmpty() ? null : (Object[]) readBack.get(0);
        if (row == null || !probeKey.equals(row[0])) {
            throw new IllegalStateException("The persistence unit does not read " + LockRow.class.getName()
                    + "'s key back as it wrote it: '" + visible(probeKey) + "' came back as "
                    + (row == null ? "no row" : "'" + visible(String.valueOf(row[0])) + "'") + ". " + keyAdvice(family));
        }
        if (padded && family != null) {
            throw new IllegalStateException("The lock table's key column ignores trailing spaces: a key found the row"
                    + " of the same key and a space, so 'k' and 'k ' would be one lock. Give lock_key the type of the shipped script ("
                    + family.schemaResource + "), which compares keys exactly");
        }
        if (padded) {
            LOG.warning(() -> "The lock table's key column ignores trailing spaces on this database: keys that differ"
                    + " only by trailing spaces ('k' and 'k ') are one lock");
        }
        if (family != null) {
            Instant stored = new DatabaseClock(time).instant(row[1]);
            if (!PROBE_TIME.equals(stored)) {
                throw new IllegalStateException("The persistence unit stores " + LockRow.class.getName()
                        + "'s times shifted: " + PROBE_TIME + " was stored as " + stored + " (UTC). " + mappingAdvice(family));
            }
        }
    }

    private static String visible(String key) {
        return key.replace("\t", "\\t");
    }

    private static boolean tableAnswers(EntityManager manager, String probeKey) {
        try {
            manager.createQuery("SELECT COUNT(r) FROM LockRow r WHERE r.key = :key").setParameter("key", probeKey)
                    .getSingleResult();
            return true;
        } catch (RuntimeException noTable) {
            return false;
        }
    }

    private static String mappingAdvice(Dialect family) {
        String file = family == null ? "META-INF/locked/instant-mapping.xml" : family.instantMappingFile();
        return "A provider of Jakarta Persistence 3.1 other than Hibernate ORM (EclipseLink 4) needs the unit to list"
                + " <mapping-file>" + file + "</mapping-file>";
    }

    private static String keyAdvice(Dialect family) {
        return family == null
                ? "Make the key column text (VARCHAR) that compares exactly, as the shipped schema script does"
                : family.keyColumnAdvice();
    }

    private static String rootMessage(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
