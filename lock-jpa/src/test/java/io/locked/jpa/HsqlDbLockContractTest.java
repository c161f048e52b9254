package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/**
 * The lock contract on embedded HSQLDB, which has no native statements: the default
 * ({@code locked.statements=auto}) locks through JPA, on a table the provider generated from
 * {@link LockRow}, in the configuration that {@link TestDatabase#HSQLDB} names (MVCC, SERIALIZABLE,
 * no PAD SPACE). There the row lock is taken by the token's write, and a second writer is refused at
 * once (a serialization failure, which the repository takes for "busy"), so waiters retry with
 * backoff rather than queue in the database. Every test of the contract runs.
 */
class HsqlDbLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.HSQLDB;
    }
}
