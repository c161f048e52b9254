package io.locked.jpa;

import io.locked.jpa.testing.TestProvider;

/**
 * The lock contract with EclipseLink 4 as the unit's provider, on the JPA path: its unit written as
 * the README tells an EclipseLink user (persistence.xml lists the mapping file of its database).
 */
abstract class EclipseLinkLockContractSuite extends JpaLockContractSuite {
    @Override
    TestProvider provider() {
        return TestProvider.ECLIPSELINK;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }
}
