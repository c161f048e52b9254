package io.locked.jpa;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.testing.TestDatabase;

/** The fenced write on PostgreSQL, with its upsert. */
class PostgreSqlLockFenceTest extends LockFenceSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    FenceStatements expectedForConnection() {
        return Dialect.of(LockDatabase.POSTGRESQL).fence(false);
    }

    @Override
    FenceStatements expectedForEntityManager() {
        return Dialect.of(LockDatabase.POSTGRESQL).fence(true);
    }
}
