package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on a JTA unit on MARIADB, through the NATIVE path. */
class MariaDbJtaNativeLockContractTest extends JtaNativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
