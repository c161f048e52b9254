package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on POSTGRESQL through the JPA path, with EclipseLink as the unit's provider. */
class PostgreSqlEclipseLinkLockContractTest extends EclipseLinkLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
