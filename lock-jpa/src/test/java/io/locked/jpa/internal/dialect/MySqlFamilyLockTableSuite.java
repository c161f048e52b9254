package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.JpaLockRepository;
import io.locked.jpa.LockDatabase;
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
 * A MySQL-family lock table compares keys exactly and stores any thread name: the shipped script
 * says so whatever the database's defaults, and a key column in utf8mb4_bin (which pads trailing
 * spaces) is refused at start-up with the statement that converts it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class MySqlFamilyLockTableSuite {
    private static final String PROBE = "locked_lock_exact_probe";
    private Store store;

    abstract TestDatabase database();

    abstract LockDatabase family();

    /** Puts the key column back as the script made it. */
    abstract String conversion();

    /** Keys that the script's column must keep apart. */
    abstract List<String> distinctKeys();

    @BeforeAll
    void openStore() {
        store = database().open(2);
    }

    @AfterAll
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }

    @Test
    void aPaddingKeyColumnIsRefusedWithTheStatementThatConvertsIt() throws SQLException {
        try (Connection connection = database().connect(); Statement sql = connection.createStatement()) {
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
                assertEquals(Optional.of(family()), accepted.database());
            } finally {
                sql.execute(conversion());
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
        List<String> keys = distinctKeys();
        try (Connection connection = database().connect(); Statement sql = connection.createStatement()) {
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
            try (Connection connection = database().connect(); Statement sql = connection.createStatement()) {
                sql.execute("DROP TABLE IF EXISTS " + PROBE);
            }
        }
    }

    private String script() throws IOException {
        try (InputStream in = MySqlFamilyLockTableSuite.class.getClassLoader()
                .getResourceAsStream(Dialect.of(family()).schemaResource)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
