package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which statements a unit gets, from its settings or the server's own words. */
class DatabaseDetectionTest {
    @Test
    void urlsDialectsAndProductNamesNameTheirFamily() {
        assertEquals(LockDatabase.MARIADB, DatabaseDetection.fromText("{url=jdbc:mysql://db:3306/app}"));
        assertEquals(LockDatabase.MARIADB, DatabaseDetection.fromText("org.hibernate.dialect.MariaDBDialect"));
        assertEquals(LockDatabase.POSTGRESQL, DatabaseDetection.fromText("PostgreSQL"));
        assertEquals(LockDatabase.H2, DatabaseDetection.fromText("jdbc:h2:mem:x"));
        assertNull(DatabaseDetection.fromText("Oracle"));
    }

    @Test
    void mariaDbPassesAndMySqlIsRefusedByName() {
        // what Connector/J and the MariaDB driver report for a MariaDB server
        assertDoesNotThrow(() -> DatabaseDetection.requireMariaDb("5.5.5-10.11.19-MariaDB-0+deb12u1"));
        assertDoesNotThrow(() -> DatabaseDetection.requireMariaDb("11.4.2-MariaDB"));
        IllegalStateException mysql = assertThrows(IllegalStateException.class,
                () -> DatabaseDetection.requireMariaDb("8.0.36"));
        assertTrue(mysql.getMessage().contains("8.0.36") && mysql.getMessage().contains("not MariaDB"),
                mysql.getMessage());
    }
}
