package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on the native path on POSTGRESQL. */
class PostgreSqlLockContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
