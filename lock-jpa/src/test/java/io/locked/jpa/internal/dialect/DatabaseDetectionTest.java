package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.locked.jpa.LockDatabase;
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
    void theServersVersionTellsMariaDbFromMySql() {
        // what Connector/J and the MariaDB driver report for a MariaDB server, and Connector/J for MySQL
        assertEquals(LockDatabase.MARIADB, DatabaseDetection.mySqlFamily("5.5.5-10.11.19-MariaDB-0+deb12u1"));
        assertEquals(LockDatabase.MARIADB, DatabaseDetection.mySqlFamily("11.4.2-MariaDB"));
        assertEquals(LockDatabase.MYSQL, DatabaseDetection.mySqlFamily("8.0.15"));
        assertEquals(LockDatabase.MYSQL, DatabaseDetection.mySqlFamily("8.4.3"));
    }
}
