package io.locked.jpa;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.testing.TestDatabase;

/** The fenced write on MariaDB: one upsert with RETURNING through JDBC, the MySQL form through JPA. */
class MariaDbLockFenceTest extends LockFenceSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    FenceStatements expectedForConnection() {
        return Dialect.of(LockDatabase.MARIADB).fence(false);
    }

    @Override
    FenceStatements expectedForEntityManager() {
        return Dialect.of(LockDatabase.MARIADB).fence(true);
    }
}
