package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;

/** The lock contract on POSTGRESQL through the JPA path, with EclipseLink as the unit's provider. */
class PostgreSqlEclipseLinkLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
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
