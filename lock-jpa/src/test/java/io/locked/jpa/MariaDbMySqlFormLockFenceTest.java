package io.locked.jpa;

import io.locked.api.LockHandle;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The fenced write on MariaDB through the MySQL form (upsert, then a locking read) for every
 * transaction, JDBC too: the form EntityManagers on MariaDB and MySQL use.
 */
class MariaDbMySqlFormLockFenceTest extends MariaDbLockFenceTest {
    @Override
    void fence(Connection connection, LockHandle handle) throws SQLException {
        LockFence.pass(new JdbcFenceTransaction(connection), Dialect.of(LockDatabase.MYSQL).fence(false), handle);
    }
}
