package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Ends a pessimistic holder's session on PostgreSQL: the row's {@code xmax} joined to the session's transaction,
 * and, where the inspection read the hold's token from the session's published name ({@link HolderSession}),
 * that token: a session whose hold was released, and which then locked the key again (the pool lent it back
 * to a holder of the same key, or its holder passed the row on in its transaction), holds another hold, which
 * the forced release of the first must not end (seen in the randomized run: a holder told of a loss that no
 * forced release of its own explained).
 */
final class PostgreSqlHolderEnd {
    private static final String END_HOLD = "SELECT pg_terminate_backend(a.pid) FROM " + LockRow.TABLE
            + " l JOIN pg_stat_activity a ON a.backend_xid = l.xmax WHERE l.lock_key = ? AND a.pid = ?";
    private static final String END_PUBLISHED_HOLD = END_HOLD + " AND (a.application_name = ? OR a.application_name LIKE ?)";

    private PostgreSqlHolderEnd() {
    }

    /**
     * @param token the hold's token, 0 where the inspection did not know it (a hold of the JPA path, which
     *              publishes none): then whichever hold of that session holds the row
     * @return false if that session no longer holds the key's row; true once the signal was sent
     */
    static boolean end(Connection connection, String key, long token, long session) throws SQLException {
        try (PreparedStatement end = connection.prepareStatement(token == 0 ? END_HOLD : END_PUBLISHED_HOLD)) {
            end.setString(1, key);
            end.setInt(2, (int) session);
            if (token != 0) {
                end.setString(3, HolderSession.PUBLISHED + token);
                end.setString(4, HolderSession.PUBLISHED + token + " %");
            }
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
