package io.locked.jpa.internal.nativepath;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * An update sent after settings of its own in the same round trip, where the database has some for
 * it ({@code RowStatements.releaseSettings}, {@code holdRowSettings}, {@code durableWriteSettings}):
 * its text, and its count or rows read past the settings' result. The update's parameters are its own: the settings take none.
 *
 * @param settings the settings sent first, or null for the update alone
 * @param sql      what to prepare: the settings, then the update
 */
record SettingsThenUpdate(String settings, String sql) {

    /** @param settings the settings, or null for the update alone */
    static SettingsThenUpdate of(String settings, String update) {
        return new SettingsThenUpdate(settings, settings == null ? update : settings + "; " + update);
    }

    /** Runs the statement prepared from {@link #sql}, its parameters bound: returns the update's count. */
    int run(PreparedStatement statement) throws SQLException {
        if (settings == null) {
            return statement.executeUpdate();
        }
        statement.execute();
        statement.getMoreResults();
        return statement.getUpdateCount();
    }

    /** Runs the statement prepared from {@link #sql}, an update that returns rows: returns its rows. */
    ResultSet rows(PreparedStatement statement) throws SQLException {
        if (settings == null) {
            return statement.executeQuery();
        }
        statement.execute();
        statement.getMoreResults();
        return statement.getResultSet();
    }
}
