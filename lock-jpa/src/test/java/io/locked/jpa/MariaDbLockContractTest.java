package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on MARIADB. */
class MariaDbLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
