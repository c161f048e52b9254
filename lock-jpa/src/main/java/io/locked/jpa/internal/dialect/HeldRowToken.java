package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockRow;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The token of a key's row that the connection's transaction holds, as that transaction wrote it. */
public final class HeldRowToken {
    private static final String TOKEN = "SELECT token FROM " + LockRow.TABLE + " WHERE lock_key = ?";

    private HeldRowToken() {
    }

    /** @throws SQLException where the row is gone, which a row lock held by the transaction rules out */
    public static long read(Connection connection, String key) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(TOKEN)) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("The row of '" + key + "' disappeared while its transaction held it");
                }
                return row.getLong(1);
            }
        }
    }
}
