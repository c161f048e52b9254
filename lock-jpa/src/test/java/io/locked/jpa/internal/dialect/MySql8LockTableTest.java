package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.testing.TestDatabase;
import java.util.List;

/**
 * The MySQL 8 lock table: the shipped script's VARBINARY key tells apart what MySQL 8.0.15's utf8mb4
 * collations would make one key (trailing spaces, case, a precomposed letter and its decomposed form).
 */
class MySql8LockTableTest extends MySqlFamilyLockTableSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL8;
    }

    @Override
    LockDatabase family() {
        return LockDatabase.MYSQL;
    }

    @Override
    String conversion() {
        return "ALTER TABLE locked_lock MODIFY lock_key VARBINARY(1020) NOT NULL";
    }

    @Override
    List<String> distinctKeys() {
        // utf8mb4_bin makes the first two one key, utf8mb4_0900_as_cs the last two
        return List.of("ключ:k", "ключ:k ", "ключ:K", "café", "cafe\u0301");
    }
}
