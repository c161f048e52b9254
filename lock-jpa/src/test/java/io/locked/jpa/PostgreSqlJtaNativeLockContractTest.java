package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on a JTA unit on POSTGRESQL, through the NATIVE path. */
class PostgreSqlJtaNativeLockContractTest extends JtaNativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
