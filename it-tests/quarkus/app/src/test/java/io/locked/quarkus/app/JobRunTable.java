package io.locked.quarkus.app;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The scheduled jobs' runs ({@link JobRuns}) as the tests read them: times in the database's microseconds. */
final class JobRunTable {
    /** A run's time, {@code ran_at}, in microseconds since the epoch on the database's clock. */
    static final String MICROS = "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', ran_at)";
    private static final String URL = "jdbc:mariadb://127.0.0.1:3306/locked_quarkus";

    private JobRunTable() {
    }

    static Connection connect() throws SQLException {
        return DriverManager.getConnection(URL, "locked", "locked");
    }

    /** @return the database's clock now, in microseconds since the epoch */
    static long databaseNowMicros() throws SQLException {
        try (Connection connection = connect();
             ResultSet now = connection.createStatement().executeQuery(
                     "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01', UTC_TIMESTAMP(6))")) {
            now.next();
            return now.getLong(1);
        }
    }
}
