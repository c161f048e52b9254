package io.locked.jpa;

import io.locked.api.LockHandle;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import java.sql.Connection;
import java.sql.SQLException;

/** The fenced write on H2 through the standard UPDATE/INSERT form that databases without their own statements get. */
class H2PortableLockFenceTest extends H2LockFenceTest {
    @Override
    void fence(Connection connection, LockHandle handle) throws SQLException {
        LockFence.pass(new JdbcFenceTransaction(connection), FenceStatements.PORTABLE, handle);
    }
}
