package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;

/** The lock contract on MARIADB through the JPA path, with EclipseLink as the unit's provider. */
class MariaDbEclipseLinkLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    TestProvider provider() {
        return TestProvider.ECLIPSELINK;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
