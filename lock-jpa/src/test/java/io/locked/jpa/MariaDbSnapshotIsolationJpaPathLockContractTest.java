package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The lock contract on MARIADB through the JPA path, with {@code innodb_snapshot_isolation=ON}: the default
 * from MariaDB 11.8 on, where a write that conflicts with its transaction's snapshot fails (error 1020) and
 * rolls the transaction back. A race lost on the JPA path must still read as a busy key, never as a store
 * failure; the contract's races (threads on one key, takeovers, hand-overs) say so. Set per session, so the
 * 10.11 server of these tests behaves as 11.8's default.
 */
class MariaDbSnapshotIsolationJpaPathLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    Map<String, String> driverProperties() {
        return Map.of("sessionVariables", "innodb_snapshot_isolation=ON");
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }

    /** Without it this class would test the default quietly. */
    @Test
    void itsSessionsRunUnderSnapshotIsolation() throws Exception {
        try (HikariDataSource pool = database().pool(1, driverProperties());
             Connection connection = pool.getConnection();
             ResultSet isolation = connection.createStatement().executeQuery("SELECT @@innodb_snapshot_isolation")) {
            assertTrue(isolation.next());
            assertEquals(1, isolation.getInt(1));
        }
    }
}
