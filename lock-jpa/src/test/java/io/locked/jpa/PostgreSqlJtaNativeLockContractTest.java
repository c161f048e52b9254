package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

/** The lock contract on a JTA unit on POSTGRESQL, through the NATIVE path. */
@Tag(TestDatabase.REPEATED_VARIANT)
class PostgreSqlJtaNativeLockContractTest extends JtaNativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
