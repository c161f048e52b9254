package io.locked.jpa;

import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceException;
import java.util.Locale;

/** Finds which {@link LockDatabase} a persistence unit talks to, once, at start-up. */
final class DatabaseDetection {
    private DatabaseDetection() {
    }

    static LockDatabase detect(EntityManagerFactory factory) {
        LockDatabase fromProperties = fromText(String.valueOf(factory.getProperties()));
        if (fromProperties != null) {
            return fromProperties;
        }
        return probe(factory);
    }

    static LockDatabase fromText(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        if (lower.contains("jdbc:h2:") || lower.contains("h2dialect")) {
            return LockDatabase.H2;
        }
        if (lower.contains("jdbc:postgresql:") || lower.contains("postgresqldialect") || lower.contains("postgresplus")) {
            return LockDatabase.POSTGRESQL;
        }
        if (lower.contains("jdbc:mysql:") || lower.contains("jdbc:mariadb:")
                || lower.contains("mysqldialect") || lower.contains("mariadbdialect")) {
            return LockDatabase.MYSQL;
        }
        return null;
    }

    // A data source hides the URL: ask the database itself. Each probe runs in its own transaction
    // because a failed statement aborts the transaction on PostgreSQL.
    private static LockDatabase probe(EntityManagerFactory factory) {
        if (answers(factory, "SELECT H2VERSION()") != null) {
            return LockDatabase.H2;
        }
        Object version = answers(factory, "SELECT version()");
        if (version != null) {
            return String.valueOf(version).toLowerCase(Locale.ROOT).contains("postgres")
                    ? LockDatabase.POSTGRESQL : LockDatabase.MYSQL;
        }
        throw new IllegalStateException("Cannot tell which database the persistence unit uses;"
                + " pass a LockDatabase to JpaLockRepository explicitly");
    }

    private static Object answers(EntityManagerFactory factory, String sql) {
        try {
            return Transactions.inNewTransaction(factory, em -> em.createNativeQuery(sql).getSingleResult());
        } catch (PersistenceException notThisDatabase) {
            return null;
        }
    }
}
