package io.locked.jpa;

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
        return FenceStatements.POSTGRESQL;
    }

    @Override
    FenceStatements expectedForEntityManager() {
        return FenceStatements.POSTGRESQL;
    }
}
