package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The MySQL 8 lock table compares keys exactly and stores any thread name: the shipped script's
 * VARBINARY key tells apart what MySQL 8.0.15's utf8mb4 collations would make one key (trailing
 * spaces, case, a precomposed letter and its decomposed form), and a key column in utf8mb4_bin is
 * refused at start-up with the statement that converts it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MySql8LockTableTest {
    private static final String PROBE = "locked_lock_exact_probe";
    private static final String CONVERSION = "ALTER TABLE locked_lock MODIFY lock_key VARBINARY(1020) NOT NULL";
    private Store store;

    @BeforeAll
    void openStore() {
        store = TestDatabase.MYSQL8.open(2);
    }

    @AfterAll
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void aPaddingKeyColumnIsRefusedWithTheStatementThatConvertsIt() throws SQLException {
        try (Connection connection = TestDatabase.MYSQL8.connect(); Statement sql = connection.createStatement()) {
            // keys that differ only by trailing spaces cannot both stay in a padding column
            sql.execute("DELETE FROM locked_lock WHERE lock_key LIKE '% '");
            sql.execute("ALTER TABLE locked_lock MODIFY lock_key VARCHAR(255) CHARACTER SET utf8mb4"
                    + " COLLATE utf8mb4_bin NOT NULL");
            try {
                IllegalStateException refused = assertThrows(IllegalStateException.class,
                        () -> new JpaLockRepository(store.factory()));
                String message = refused.getMessage();
                assertTrue(message.contains("lock_key") && message.contains("utf8mb4_bin"), message);
                int statement = message.indexOf("ALTER TABLE locked_lock");
                assertTrue(statement >= 0, "the message names the conversion: " + message);

                sql.execute(message.substring(statement));
                JpaLockRepository accepted = assertDoesNotThrow(() -> new JpaLockRepository(store.factory()));
                assertEquals(Optional.of(LockDatabase.MYSQL), accepted.database());
            } finally {
                sql.execute(CONVERSION);
            }
        }
    }

    @Test
    void scriptKeepsKeysExactAndThreadNamesWholeInADatabaseWithAnotherDefault() throws SQLException, IOException {
        // the script's locked_lock statement, on a probe table whose default character set is latin1
        String create = Arrays.stream(script().split(";"))
                .filter(part -> part.contains("CREATE TABLE IF NOT EXISTS locked_lock ("))
                .findFirst().orElseThrow()
                .replace("locked_lock (", PROBE + " (")
                .replace("ENGINE = InnoDB", "ENGINE = InnoDB DEFAULT CHARSET = latin1");
        String holder = "host/42/工作线程-✓ at 2026-11-23T12:00:00Z";
        // utf8mb4_bin makes the first two one key, utf8mb4_0900_as_cs the last two
        List<String> keys = List.of("ключ:k", "ключ:k ", "ключ:K", "café", "cafe\u0301");
        try (Connection connection = TestDatabase.MYSQL8.connect(); Statement sql = connection.createStatement()) {
            sql.execute("DROP TABLE IF EXISTS " + PROBE);
            sql.execute(create);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + PROBE + " (lock_key, holder) VALUES (?, ?)")) {
                for (String key : keys) {
                    insert.setString(1, key);
                    insert.setString(2, holder);
                    insert.executeUpdate();
                }
            }
            try (ResultSet rows = sql.executeQuery("SELECT COUNT(*), MIN(holder) FROM " + PROBE)) {
                rows.next();
                assertEquals(keys.size(), rows.getInt(1), "every key is a row of its own");
                assertEquals(holder, rows.getString(2));
            }
            try (PreparedStatement read = connection.prepareStatement("SELECT lock_key FROM " + PROBE + " WHERE lock_key = ?")) {
                for (String key : keys) {
                    read.setString(1, key);
                    try (ResultSet row = read.executeQuery()) {
                        assertTrue(row.next(), key);
                        assertEquals(key, row.getString(1), "the key reads back as written");
                    }
                }
            }
        } finally {
            try (Connection connection = TestDatabase.MYSQL8.connect(); Statement sql = connection.createStatement()) {
                sql.execute("DROP TABLE IF EXISTS " + PROBE);
            }
        }
    }

    private static String script() throws IOException {
        try (InputStream in = MySql8LockTableTest.class.getClassLoader()
                .getResourceAsStream(LockDatabase.MYSQL.schemaResource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
