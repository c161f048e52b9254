package io.locked.jpa;

import io.locked.api.LockHandle;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import java.sql.Connection;
import java.sql.SQLException;

/** The fenced write on MariaDB through the standard UPDATE/INSERT form, under REPEATABLE READ. */
class MariaDbPortableLockFenceTest extends MariaDbLockFenceTest {
    @Override
    void fence(Connection connection, LockHandle handle) throws SQLException {
        LockFence.pass(new JdbcFenceTransaction(connection), FenceStatements.PORTABLE, handle);
    }
}
