package io.locked.jpa;

/**
 * The database families Locked has native statements for. {@link JpaLockRepository} detects the
 * family from the persistence unit; pass one explicitly when detection cannot tell. Any other
 * database runs the JPA path (see {@link LockStatements}).
 *
 * <p>Every time is the database's: leases start and end on its clock, and fencing tokens are drawn
 * from it, so that they keep increasing after a row is deleted and created again, and after a
 * pessimistic holder's transaction was rolled back (both rely on the database clock not stepping
 * back). How each database does it is in its dialect ({@code io.locked.jpa.internal.dialect}).
 */
public enum LockDatabase {
    /** MariaDB 10.6+ (Galera included), through mysql-connector-j or the MariaDB driver. */
    MARIADB,
    /**
     * MySQL 8.0+, through mysql-connector-j with its default properties. A waiter polls rather than
     * queues inside the database: MySQL cannot bound one statement's lock wait.
     */
    MYSQL,
    /** PostgreSQL 12+. */
    POSTGRESQL,
    /** H2 2.3+. */
    H2
}
