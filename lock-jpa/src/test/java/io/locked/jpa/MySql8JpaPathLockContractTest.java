package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on MYSQL8 through the JPA path: EntityManager, PESSIMISTIC_WRITE, @Version. */
class MySql8JpaPathLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL8;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
