package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on the native path on MARIADB. */
class MariaDbLockContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
