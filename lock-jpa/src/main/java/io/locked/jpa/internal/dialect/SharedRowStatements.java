package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockRow;

/**
 * The statements that lock one more row of the lock table in an open transaction, beside the row it
 * holds, without waiting ({@code SKIP LOCKED}): shared, which other transactions may lock too, or
 * exclusive. A read/write lock's pessimistic reader slots share its shared row this way, and its writer
 * locks it alone. Each returns the row's key where it locked it, nothing where the row is absent or
 * another transaction's lock conflicts.
 *
 * @param shared    the shared lock's statement
 * @param exclusive the exclusive lock's statement
 */
public record SharedRowStatements(String shared, String exclusive) {

    /** @return the database's statements, or null where it has no shared row lock (H2) */
    public static SharedRowStatements of(Dialect database) {
        String sharedLock = sharedLock(database.family());
        return sharedLock == null ? null : new SharedRowStatements(lock(sharedLock), lock("FOR UPDATE"));
    }

    private static String sharedLock(LockDatabase family) {
        return switch (family) {
            case MARIADB -> "LOCK IN SHARE MODE";
            case MYSQL, POSTGRESQL -> "FOR SHARE";
            default -> null;
        };
    }

    /**
     * @return the statement that locks a key's own row for update without waiting ({@code SKIP LOCKED}) and
     *         returns it whole, for a JPA provider's native query of the lock row, where the provider's lock
     *         modes write no such lock for the database (Hibernate on H2); null elsewhere, and for an unknown
     *         database (null)
     */
    public static String ownRow(LockDatabase family) {
        return family == LockDatabase.H2
                ? "SELECT * FROM " + LockRow.TABLE + " WHERE lock_key = ? FOR UPDATE SKIP LOCKED"
                : null;
    }

    private static String lock(String clause) {
        return "SELECT lock_key FROM " + LockRow.TABLE + " WHERE lock_key = ? " + clause + " SKIP LOCKED";
    }

    /**
     * @param database the database's name, as the message's subject
     * @return why a read/write lock cannot be {@code PESSIMISTIC} on the database, and what to do instead
     */
    public static String refusal(String database) {
        return database + " has no shared row locks (SELECT ... FOR SHARE) that Locked knows, which the PESSIMISTIC"
                + " readers and writers of a read/write lock share their key with: use mode OPTIMISTIC for this lock,"
                + " or MariaDB, MySQL or PostgreSQL";
    }
}
