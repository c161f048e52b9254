package io.locked.jpa.internal.connection;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The connections of a data source whose borrow cannot be told how long to wait (any pool but
 * HikariCP): each borrow of a lock call goes through {@link LendingThreads}.
 */
public final class LentConnections implements LockConnections, LendingThreads.Pool {
    private final DataSource dataSource;

    LentConnections(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public Connection open() throws SQLException {
        return dataSource.getConnection();
    }

    @Override
    public Connection open(long waitNanos) throws SQLException {
        return LendingThreads.borrow(this, waitNanos);
    }

    @Override
    public Connection borrow() throws SQLException {
        return dataSource.getConnection();
    }

    @Override
    public void giveBack(Connection connection) throws SQLException {
        connection.close();
    }

    @Override
    public void close(Connection connection) throws SQLException {
        connection.close();
    }

    @Override
    public String describe() {
        return "the data source " + dataSource.getClass().getName() + " (its size unknown to Locked)";
    }
}
