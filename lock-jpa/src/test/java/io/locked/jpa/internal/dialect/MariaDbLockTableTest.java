package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.testing.TestDatabase;
import java.util.List;

/**
 * The MariaDB lock table: utf8mb4_nopad_bin keeps keys that differ by trailing spaces or case apart,
 * and a table from an earlier script (utf8mb4_bin) is refused with the statement that converts it.
 */
class MariaDbLockTableTest extends MySqlFamilyLockTableSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    LockDatabase family() {
        return LockDatabase.MARIADB;
    }

    @Override
    String conversion() {
        return TestDatabase.MARIADB_LOCK_TABLE_CONVERSION;
    }

    @Override
    List<String> distinctKeys() {
        return List.of("ключ:k", "ключ:k ", "ключ:K");
    }
}
