package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on H2 through the JPA path, with EclipseLink as the unit's provider. */
class H2EclipseLinkLockContractTest extends EclipseLinkLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
