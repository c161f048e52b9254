package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import org.junit.jupiter.api.Tag;

/** The lock contract on a JTA unit on MARIADB, through the NATIVE path. */
@Tag(TestDatabase.REPEATED_VARIANT)
class MariaDbJtaNativeLockContractTest extends JtaNativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
