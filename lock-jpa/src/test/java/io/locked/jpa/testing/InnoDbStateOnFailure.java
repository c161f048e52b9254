package io.locked.jpa.testing;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * When a test on MariaDB or MySQL 8 fails, prints the server's open transactions and, on MySQL 8, the
 * row and gap locks they hold: a wait that ran out on a lock nobody in the test should hold (a gap lock of
 * a transaction left open, say) names its holder in the failed run's own output, where a re-run would not
 * show it. Prints nothing for the other databases, and nothing when the test passed.
 */
public final class InnoDbStateOnFailure implements TestWatcher {
    private static final String LOCKS = "SELECT ENGINE_TRANSACTION_ID, THREAD_ID, LOCK_TYPE, LOCK_MODE, LOCK_STATUS,"
            + " LEFT(COALESCE(LOCK_DATA, ''), 200) AS lock_data FROM performance_schema.data_locks"
            + " WHERE OBJECT_NAME = 'locked_lock' LIMIT 200";
    private final Supplier<TestDatabase> database;

    /** @param database the test's database, asked only when a test failed */
    public InnoDbStateOnFailure(Supplier<TestDatabase> database) {
        this.database = database;
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        String state = now(database.get());
        if (!state.isEmpty()) {
            System.out.print("InnoDB after the failure of " + context.getDisplayName() + " on " + state);
        }
    }

    /**
     * The server's open transactions and (MySQL 8) their locks on the lock table, read now: for a test
     * that fails while what it holds is still held, before its cleanup ends the transactions that the
     * report above, printed after the test, no longer finds.
     *
     * @return the database's name and the report, or empty for a database other than MariaDB and MySQL 8
     */
    public static String now(TestDatabase on) {
        if (on != TestDatabase.MARIADB && on != TestDatabase.MYSQL8) {
            return "";
        }
        StringBuilder report = new StringBuilder(on + ":\n");
        try (Connection connection = on.connect(); Statement statement = connection.createStatement()) {
            transactions(connection, report);
            if (on == TestDatabase.MYSQL8) {
                table(statement, LOCKS, "locks on locked_lock", report);
            }
        } catch (SQLException unreadable) {
            report.append("  not readable: ").append(unreadable).append('\n');
        }
        return report.toString();
    }

    /** From InnoDB's own list: its {@code innodb_trx} copy may be older than the failure (InnoDbTransactions). */
    private static void transactions(Connection connection, StringBuilder report) throws SQLException {
        report.append("  open transactions:\n");
        int count = 0;
        for (String transaction : InnoDbTransactions.of(connection)) {
            if (InnoDbTransactions.active(transaction)) {
                count++;
                report.append("    ---TRANSACTION ").append(transaction.strip().replace("\n", "\n      ")).append('\n');
            }
        }
        if (count == 0) {
            report.append("    none\n");
        }
    }

    private static void table(Statement statement, String sql, String title, StringBuilder report) throws SQLException {
        report.append("  ").append(title).append(":\n");
        try (ResultSet rows = statement.executeQuery(sql)) {
            ResultSetMetaData columns = rows.getMetaData();
            int count = 0;
            while (rows.next()) {
                count++;
                report.append("   ");
                for (int column = 1; column <= columns.getColumnCount(); column++) {
                    report.append(' ').append(columns.getColumnLabel(column)).append('=').append(readable(rows.getString(column)));
                }
                report.append('\n');
            }
            if (count == 0) {
                report.append("    none\n");
            }
        }
    }

    /** MySQL 8 shows a binary key in a lock's data as hex ({@code 0x7065...}): the key's text instead. */
    private static String readable(String value) {
        if (value == null || !value.matches("0x([0-9A-Fa-f]{2})+")) {
            return value;
        }
        return "'" + new String(HexFormat.of().parseHex(value.substring(2)), StandardCharsets.UTF_8) + "'";
    }
}
