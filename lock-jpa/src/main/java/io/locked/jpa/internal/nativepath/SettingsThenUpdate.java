package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.InlinedStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * An update sent after settings of its own in the same round trip, where the database has some for
 * it ({@code RowStatements.releaseSettings}, {@code holdRowSettings}, {@code durableWriteSettings}):
 * its text, and its count or rows read past the settings' result. The update's parameters are its own: the settings take none.
 *
 * @param settings the settings sent first, or null for the update alone
 * @param sql      what to prepare: the settings, then the update
 * @param inlined  the same text to send with its values written in ({@link #update}), or null to prepare it
 */
record SettingsThenUpdate(String settings, String sql, InlinedStatement inlined) {

    /** @param settings the settings, or null for the update alone */
    static SettingsThenUpdate of(String settings, String update) {
        return of(settings, update, false);
    }

    /**
     * @param settings the settings, or null for the update alone
     * @param inline   whether {@link #update} sends the text with its values written in, as the database's
     *                 lock statements go ({@code RowStatements.inlinesLockStatements}): a driver that prepares
     *                 on the client scans the text for its placeholders at every prepare
     */
    static SettingsThenUpdate of(String settings, String update, boolean inline) {
        String sql = settings == null ? update : settings + "; " + update;
        return new SettingsThenUpdate(settings, sql, inline ? new InlinedStatement(sql) : null);
    }

    /**
     * Sends the update with its parameters, written in or bound.
     *
     * @param values one per placeholder, in order: {@link String}s and {@link Long}s
     * @return the update's count
     */
    int update(Connection connection, Object... values) throws SQLException {
        if (inlined != null) {
            try (Statement update = connection.createStatement()) {
                if (settings == null) {
                    return update.executeUpdate(inlined.with(values));
                }
                update.execute(inlined.with(values));
                update.getMoreResults();
                return update.getUpdateCount();
            }
        }
        try (PreparedStatement update = connection.prepareStatement(sql)) {
            for (int i = 0; i < values.length; i++) {
                if (values[i] instanceof Long number) {
                    update.setLong(i + 1, number);
                } else {
                    update.setString(i + 1, (String) values[i]);
                }
            }
            return run(update);
        }
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
