package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

/** The lock contract on POSTGRESQL through the JPA path, with EclipseLink as the unit's provider. */
@Tag(TestDatabase.REPEATED_VARIANT)
class PostgreSqlEclipseLinkLockContractTest extends EclipseLinkLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
