package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on POSTGRESQL through the JPA path: EntityManager, PESSIMISTIC_WRITE, @Version. */
class PostgreSqlJpaPathLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
