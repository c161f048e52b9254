package io.locked.jpa.internal.startup;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Refuses, at start-up, a lock table that would make two keys one lock or fail on some thread
 * names: on MariaDB a key column with a PAD SPACE collation ({@code utf8mb4_bin} ignores trailing
 * spaces, so {@code 'k'} and {@code 'k '} would share a row), or text columns not in utf8mb4.
 * Tables from the shipped scripts pass; PostgreSQL's and H2's VARCHAR compare exactly.
 */
public final class LockTableCheck {
    /** Converts a MariaDB lock table created by an earlier script; the schema script names it too. */
    private static final String MARIADB_CONVERSION = "ALTER TABLE " + LockRow.TABLE
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,"
            + " MODIFY owner VARCHAR(36) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NULL,"
            + " MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL";
    private static final String MARIADB_FENCE_CONVERSION = "ALTER TABLE locked_fence"
            + " MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL";
    // exact means binary and NO PAD: utf8mb4_nopad_bin (a *_nopad_ci collation would still make
    // 'Order:1' and 'order:1' one lock); the owner column holds ASCII UUIDs and is not checked
    // (the fence table of LockFence keys its rows the same way)
    private static final String MARIADB_MISFITS = "SELECT CONCAT(table_name, '.', column_name), character_set_name,"
            + " collation_name FROM information_schema.columns WHERE table_schema = DATABASE()"
            + " AND ((table_name IN ('" + LockRow.TABLE + "', 'locked_fence') AND column_name = 'lock_key'"
            + " AND collation_name <> 'utf8mb4_nopad_bin')"
            + " OR (table_name = '" + LockRow.TABLE + "' AND column_name = 'holder' AND character_set_name <> 'utf8mb4'))";

    /** Converts a MySQL lock table whose key would not compare exactly; the schema script names it too. */
    private static final String MYSQL_CONVERSION = "ALTER TABLE " + LockRow.TABLE + " MODIFY lock_key VARBINARY(1020) NOT NULL,"
            + " MODIFY holder VARCHAR(255) CHARACTER SET utf8mb4 NULL";
    private static final String MYSQL_FENCE_CONVERSION = "ALTER TABLE locked_fence MODIFY lock_key VARBINARY(1020) NOT NULL";
    // exact on MySQL: bytes (VARBINARY, as the script makes it), or utf8mb4_0900_bin (8.0.17+, binary
    // and NO PAD); MySQL has no utf8mb4_nopad_bin, and its utf8mb4_bin pads trailing spaces
    private static final String MYSQL_MISFITS = "SELECT CONCAT(table_name, '.', column_name), COALESCE(character_set_name,"
            + " data_type), COALESCE(collation_name, '') FROM information_schema.columns WHERE table_schema = DATABASE()"
            + " AND ((table_name IN ('" + LockRow.TABLE + "', 'locked_fence') AND column_name = 'lock_key'"
            + " AND NOT (data_type = 'varbinary' OR collation_name = 'utf8mb4_0900_bin'))"
            + " OR (table_name = '" + LockRow.TABLE + "' AND column_name = 'holder' AND character_set_name <> 'utf8mb4'))";

    private LockTableCheck() {
    }

    /**
     * Checks the table if the database answers and the table is there (one that is created later
     * comes from the shipped script).
     *
     * @throws IllegalStateException naming the columns and the statement that converts them
     */
    public static void check(LockConnections connections, Dialect database) {
        if (database != Dialect.MARIADB && database != Dialect.MYSQL) {
            return;
        }
        boolean mySql = database == Dialect.MYSQL;
        StringBuilder misfits = new StringBuilder();
        try {
            Connection connection = connections.open();
            try (PreparedStatement query = connection.prepareStatement(mySql ? MYSQL_MISFITS : MARIADB_MISFITS);
                 ResultSet columns = query.executeQuery()) {
                while (columns.next()) {
                    misfits.append(misfits.isEmpty() ? "" : ", ").append(columns.getString(1)).append(" (")
                            .append(columns.getString(2)).append(' ').append(columns.getString(3)).append(')');
                }
            } finally {
                connections.close(connection);
            }
        } catch (SQLException unreachable) {
            // nothing to check against now: a database that is down fails the first lock clearly
            return;
        }
        if (!misfits.isEmpty() && mySql) {
            throw new IllegalStateException("The lock table " + LockRow.TABLE + " has columns that do not compare keys"
                    + " exactly or cannot store every thread name: " + misfits + ". On MySQL the key must be VARBINARY"
                    + " (or utf8mb4_0900_bin on MySQL 8.0.17+; with utf8mb4_bin, 'k' and 'k ' are one lock), the holder"
                    + " utf8mb4. Convert the table (this rebuilds it) with: " + MYSQL_CONVERSION
                    + (misfits.indexOf("locked_fence.") >= 0 ? "; and the fence table with: " + MYSQL_FENCE_CONVERSION : ""));
        }
        if (!misfits.isEmpty()) {
            throw new IllegalStateException("The lock table " + LockRow.TABLE + " has columns that do not compare keys"
                    + " exactly or cannot store every thread name: " + misfits + ". The key must be utf8mb4_nopad_bin"
                    + " (with utf8mb4_bin, 'k' and 'k ' are one lock), the holder utf8mb4. Convert the table (this"
                    + " rebuilds it) with: " + MARIADB_CONVERSION + (misfits.indexOf("locked_fence.") >= 0
                    ? "; and the fence table with: " + MARIADB_FENCE_CONVERSION : ""));
        }
    }
}
