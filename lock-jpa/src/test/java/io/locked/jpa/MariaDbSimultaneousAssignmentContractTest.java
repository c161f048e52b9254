package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import java.util.Map;

/**
 * The lock contract on MariaDB with {@code sql_mode = SIMULTANEOUS_ASSIGNMENT}, where the SET
 * list of an UPDATE reads every column as it was rather than left to right: the lock statements
 * must mean the same in both modes.
 */
class MariaDbSimultaneousAssignmentContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    Map<String, String> driverProperties() {
        return Map.of("sessionVariables", "sql_mode='SIMULTANEOUS_ASSIGNMENT'");
    }
}
