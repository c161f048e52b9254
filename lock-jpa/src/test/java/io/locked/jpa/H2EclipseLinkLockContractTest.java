package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.TestProvider;

/** The lock contract on H2 through the JPA path, with EclipseLink as the unit's provider. */
class H2EclipseLinkLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
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
