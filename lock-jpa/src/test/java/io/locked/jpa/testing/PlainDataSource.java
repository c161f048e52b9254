package io.locked.jpa.testing;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A data source that is nothing but its {@link #getConnection()}: no pool Locked could recognise,
 * no wrapped object, no logging. Tests extend it to hand a unit connections their own way.
 */
public abstract class PlainDataSource implements DataSource {

    @Override
    public abstract Connection getConnection() throws SQLException;

    /** The user and password of the underlying connections are the subclass's. */
    @Override
    public Connection getConnection(String user, String password) throws SQLException {
        return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
    }

    @Override
    public void setLoginTimeout(int seconds) {
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public Logger getParentLogger() {
        return Logger.getLogger(getClass().getName());
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
        throw new SQLException(getClass().getSimpleName() + " wraps nothing");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
        return false;
    }
}
