package io.locked.jpa;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.testing.TestDatabase;

/** The fenced write on MySQL 8: the upsert, then a locking read, through JDBC and through JPA alike. */
class MySql8LockFenceTest extends LockFenceSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL8;
    }

    @Override
    FenceStatements expectedForConnection() {
        return Dialect.of(LockDatabase.MYSQL).fence(false);
    }

    @Override
    FenceStatements expectedForEntityManager() {
        return Dialect.of(LockDatabase.MYSQL).fence(true);
    }
}
