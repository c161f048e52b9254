package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on a JTA unit on POSTGRESQL, through the JPA path. */
class PostgreSqlJtaJpaPathLockContractTest extends JtaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
