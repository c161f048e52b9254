package io.locked.jpa;

/**
 * Which statements lock the rows: {@code locked.statements} in configuration,
 * {@link JpaLockRepository.Builder#statements(LockStatements)} in code.
 */
public enum LockStatements {
    /** Native statements where the database has them (MariaDB, MySQL 8, PostgreSQL, H2), JPA elsewhere. */
    AUTO,
    /**
     * Through the {@code EntityManager} only: {@code PESSIMISTIC_WRITE} for pessimistic locks, a
     * compare-and-set on the {@code @Version} for leases. Runs on any JPA provider and database.
     */
    JPA,
    /** Statements written for the database; a database without them fails at start-up. */
    NATIVE;

    /** The configuration key. */
    public static final String KEY = "locked.statements";

    /**
     * @param value a configured value of {@link #KEY}, in any case
     * @return the constant
     * @throws IllegalArgumentException naming the key and the values allowed
     */
    public static LockStatements parse(String value) {
        for (LockStatements statements : values()) {
            if (statements.name().equalsIgnoreCase(value.trim())) {
                return statements;
            }
        }
        throw new IllegalArgumentException(KEY + " must be auto, jpa or native, was '" + value + "'");
    }
}
