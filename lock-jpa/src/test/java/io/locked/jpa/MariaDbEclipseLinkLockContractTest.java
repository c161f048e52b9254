package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on MARIADB through the JPA path, with EclipseLink as the unit's provider. */
class MariaDbEclipseLinkLockContractTest extends EclipseLinkLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
