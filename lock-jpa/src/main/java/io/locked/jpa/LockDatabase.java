package io.locked.jpa;

import jakarta.persistence.EntityManager;
import java.util.function.UnaryOperator;

/**
 * The database families Locked has statements for. {@link JpaLockRepository} detects the family
 * from the persistence unit; pass one explicitly when detection cannot tell.
 *
 * <p>The statements: every time is the database's. Every time is the database's: leases start and end on
 * its clock, and tokens are drawn as {@code GREATEST(token + 1, now in microseconds)} so that they
 * keep increasing after a row is deleted and created again, and after a pessimistic holder's
 * transaction was rolled back (both rely on the database clock not stepping back).
 *
 * <p>Named parameters: key, owner, holder, version, and micros (a duration in microseconds).
 */
public enum LockDatabase {
    /** MySQL 8 and MariaDB 10.6+, through mysql-connector-j or the MariaDB driver. */
    MYSQL("UTC_TIMESTAMP(6)",
            "TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))",
            micros -> "DATE_ADD(UTC_TIMESTAMP(6), INTERVAL " + micros + " MICROSECOND)",
            "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (:key, 0, 0)"
                    + " ON DUPLICATE KEY UPDATE lock_key = lock_key",
            "schema-mysql.sql"),
    /** PostgreSQL 12+. */
    POSTGRESQL("clock_timestamp()",
            "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000000 AS BIGINT)",
            micros -> "(clock_timestamp() + CAST(" + micros + " AS BIGINT) * INTERVAL '1 microsecond')",
            "INSERT INTO " + LockRow.TABLE + " (lock_key, version, token) VALUES (:key, 0, 0)"
                    + " ON CONFLICT (lock_key) DO NOTHING",
            "schema-postgresql.sql"),
    /** H2 2.x. Its clock reads the same value throughout a transaction. */
    H2("CURRENT_TIMESTAMP(6)",
            "DATEDIFF(MICROSECOND, TIMESTAMP WITH TIME ZONE '1970-01-01 00:00:00+00', CURRENT_TIMESTAMP(6))",
            micros -> "DATEADD(MICROSECOND, " + micros + ", CURRENT_TIMESTAMP(6))",
            "MERGE INTO " + LockRow.TABLE + " t USING (VALUES (CAST(:key AS VARCHAR(255)))) s(k) ON t.lock_key = s.k"
                    + " WHEN NOT MATCHED THEN INSERT (lock_key, version, token) VALUES (s.k, 0, 0)",
            "schema-h2.sql");

    private static final String FREE_OR_EXPIRED = " AND (owner IS NULL OR expires_at <= %s)";

    final String insertIfAbsent;
    final String schemaResource;
    /** Pessimistic: the row is already locked; draw a token unless a live lease holds the key. */
    final String drawToken;
    final String readToken;
    /** Optimistic take: one compare-and-set that succeeds only on a free or expired row. */
    final String takeLease;
    final String readLease;
    final String renewLease;
    final String releaseLease;
    final String freeOwnExpiredLease;
    final String idleKeys;
    final String deleteIdle;

    LockDatabase(String now, String nowMicros, UnaryOperator<String> nowPlusMicros, String insertIfAbsent, String schemaFile) {
        String nowPlusLease = nowPlusMicros.apply(":micros");
        String table = LockRow.TABLE;
        this.insertIfAbsent = insertIfAbsent;
        this.schemaResource = "META-INF/locked/" + schemaFile;
        this.drawToken = "UPDATE " + table + " SET token = GREATEST(token + 1, " + nowMicros + "), version = version + 1,"
                + " acquired_at = " + now + ", holder = :holder WHERE lock_key = :key" + FREE_OR_EXPIRED.formatted(now);
        this.readToken = "SELECT token FROM " + table + " WHERE lock_key = :key";
        this.takeLease = "UPDATE " + table + " SET owner = :owner, holder = :holder, version = version + 1,"
                + " token = GREATEST(token + 1, " + nowMicros + "), acquired_at = " + now
                + ", expires_at = " + nowPlusLease + " WHERE lock_key = :key" + FREE_OR_EXPIRED.formatted(now);
        this.readLease = "SELECT token, version FROM " + table + " WHERE lock_key = :key AND owner = :owner";
        this.renewLease = "UPDATE " + table + " SET version = version + 1, expires_at = " + nowPlusLease
                + " WHERE lock_key = :key AND owner = :owner AND version = :version AND expires_at > " + now;
        this.releaseLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = :key AND owner = :owner AND version = :version AND expires_at > " + now;
        this.freeOwnExpiredLease = "UPDATE " + table + " SET owner = NULL, expires_at = NULL, version = version + 1"
                + " WHERE lock_key = :key AND owner = :owner";
        // micros is minus the idle time; rows created but never acquired have no acquired_at yet
        String idleSince = nowPlusMicros.apply(":micros");
        String idle = "(acquired_at IS NULL OR acquired_at < " + idleSince + ")"
                + " AND (owner IS NULL OR expires_at < " + idleSince + ")";
        this.idleKeys = "SELECT lock_key FROM " + table + " WHERE " + idle;
        this.deleteIdle = "DELETE FROM " + table + " WHERE lock_key = :key AND " + idle;
    }

    /**
     * Bounds how long the next row lock of this transaction queues, and returns the value for the
     * JPA lock timeout hint. Zero means NOWAIT. MySQL/MariaDB wait in whole seconds ({@code WAIT n},
     * rendered by the provider from the hint); PostgreSQL and H2 take milliseconds from a setting.
     */
    int prepareLockWait(EntityManager entityManager, long waitMillis) {
        switch (this) {
            case MYSQL:
                return (int) Math.min(Integer.MAX_VALUE, waitMillis / 1000 * 1000);
            case POSTGRESQL:
                if (waitMillis <= 0) {
                    return 0;
                }
                // SET LOCAL ends with the transaction, so the pooled connection goes back unchanged
                entityManager.createNativeQuery("SET LOCAL lock_timeout = '" + waitMillis + "ms'").executeUpdate();
                return -1;
            default:
                // H2 reads 0 as "its default" (2 s): the shortest real bound is 1 ms
                entityManager.createNativeQuery("SET LOCK_TIMEOUT " + Math.max(1, waitMillis)).executeUpdate();
                return -1;
        }
    }
}
