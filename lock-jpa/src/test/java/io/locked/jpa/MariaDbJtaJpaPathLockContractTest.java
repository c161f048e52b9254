package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on a JTA unit on MARIADB, through the JPA path. */
class MariaDbJtaJpaPathLockContractTest extends JtaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
