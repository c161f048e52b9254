package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on POSTGRESQL. */
class PostgreSqlLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
