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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The MariaDB lock table compares keys exactly and stores any thread name: the shipped script says
 * so whatever the database's defaults, and a table from an earlier script (a key column in
 * utf8mb4_bin, which pads trailing spaces) is refused at start-up with the statement that converts it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MariaDbLockTableTest {
    private static final String PROBE = "locked_lock_charset_probe";
    private Store store;

    @BeforeAll
    void openStore() {
        store = TestDatabase.MARIADB.open(2);
    }

    @AfterAll
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void tableFromAnEarlierScriptIsRefusedWithTheStatementThatConvertsIt() throws SQLException {
        try (Connection connection = TestDatabase.MARIADB.connect(); Statement sql = connection.createStatement()) {
            // as the earlier script made it; keys that differ only by trailing spaces cannot both stay
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
                assertDoesNotThrow(() -> new JpaLockRepository(store.factory()));
            } finally {
                sql.execute(TestDatabase.MARIADB_LOCK_TABLE_CONVERSION);
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
        try (Connection connection = TestDatabase.MARIADB.connect(); Statement sql = connection.createStatement()) {
            sql.execute("DROP TABLE IF EXISTS " + PROBE);
            sql.execute(create);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO " + PROBE + " (lock_key, holder) VALUES (?, ?), (?, ?)")) {
                insert.setString(1, "ключ:k");
                insert.setString(2, holder);
                insert.setString(3, "ключ:k ");
                insert.setString(4, holder);
                insert.executeUpdate();
            }
            try (ResultSet rows = sql.executeQuery("SELECT COUNT(*), MIN(holder) FROM " + PROBE)) {
                rows.next();
                assertEquals(2, rows.getInt(1), "'k' and 'k ' are two rows");
                assertEquals(holder, rows.getString(2));
            }
        } finally {
            try (Connection connection = TestDatabase.MARIADB.connect(); Statement sql = connection.createStatement()) {
                sql.execute("DROP TABLE IF EXISTS " + PROBE);
            }
        }
    }

    private static String script() throws IOException {
        try (InputStream in = MariaDbLockTableTest.class.getClassLoader()
                .getResourceAsStream(LockDatabase.MARIADB.schemaResource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
