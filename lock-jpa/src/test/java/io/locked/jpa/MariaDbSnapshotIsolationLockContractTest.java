package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import java.util.Map;

/**
 * The lock contract on MARIADB's native path with {@code innodb_snapshot_isolation=ON}: the default from
 * MariaDB 11.8 on, where a write that conflicts with its transaction's snapshot fails (error 1020) and rolls
 * the transaction back. Set per session, so the 10.11 server of these tests behaves as 11.8's default.
 */
class MariaDbSnapshotIsolationLockContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    Map<String, String> driverProperties() {
        return Map.of("sessionVariables", "innodb_snapshot_isolation=ON");
    }
}
