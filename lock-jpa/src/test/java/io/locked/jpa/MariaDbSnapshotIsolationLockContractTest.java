package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import java.util.Map;

/**
 * The lock contract on MARIADB's native path with {@code innodb_snapshot_isolation=ON}, MariaDB 11.8's
 * default (see {@link MariaDbSnapshotIsolationJpaPathLockContractTest}).
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
