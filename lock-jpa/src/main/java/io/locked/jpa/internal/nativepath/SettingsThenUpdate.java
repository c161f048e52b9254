package io.locked.jpa.internal.nativepath;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * An update sent after settings of its own in the same round trip, where the database has some for
 * it ({@code RowStatements.releaseSettings}, {@code holdRowSettings}): its text, and its count read
 * past the settings' result. The update's parameters are its own: the settings take none.
 *
 * @param sql          what to prepare
 * @param settingsFirst whether settings come first, giving a result of their own
 */
record SettingsThenUpdate(String sql, boolean settingsFirst) {

    /** @param settings the settings, or null for the update alone */
    static SettingsThenUpdate of(String settings, String update) {
        return settings == null ? new SettingsThenUpdate(update, false)
                : new SettingsThenUpdate(settings + "; " + update, true);
    }

    /** Runs the statement prepared from {@link #sql}, its parameters bound: returns the update's count. */
    int run(PreparedStatement statement) throws SQLException {
        if (!settingsFirst) {
            return statement.executeUpdate();
        }
        statement.execute();
        statement.getMoreResults();
        return statement.getUpdateCount();
    }
}
