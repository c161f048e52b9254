package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Ends a pessimistic holder's session on PostgreSQL: the row's {@code xmax} joined to the session's transaction. */
final class PostgreSqlHolderEnd {
    private static final String END_HOLD = "SELECT pg_terminate_backend(a.pid) FROM " + LockRow.TABLE
            + " l JOIN pg_stat_activity a ON a.backend_xid = l.xmax WHERE l.lock_key = ? AND a.pid = ?";

    private PostgreSqlHolderEnd() {
    }

    /** @return false if that session no longer holds the key's row; true once the signal was sent */
    static boolean end(Connection connection, String key, long session) throws SQLException {
        try (PreparedStatement end = connection.prepareStatement(END_HOLD)) {
            end.setString(1, key);
            end.setInt(2, (int) session);
            try (ResultSet ended = end.executeQuery()) {
                if (!ended.next()) {
                    return false;
                }
                if (!ended.getBoolean(1)) {
                    throw new SQLException("pg_terminate_backend(" + session + ") answered false");
                }
                return true;
            }
        }
    }
}
