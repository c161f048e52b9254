package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on MARIADB through the JPA path: EntityManager, PESSIMISTIC_WRITE, @Version. */
class MariaDbJpaPathLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
