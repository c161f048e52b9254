package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.internal.dialect.DatabaseDetection;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The fenced write on H2, with its MERGE. */
class H2LockFenceTest extends LockFenceSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    FenceStatements expectedForConnection() {
        return Dialect.of(LockDatabase.H2).fence(false);
    }

    @Override
    FenceStatements expectedForEntityManager() {
        return Dialect.of(LockDatabase.H2).fence(true);
    }

    @Test
    void unitWhoseSettingsDoNotNameItsDatabaseIsAskedThroughAConnection() {
        try (HikariDataSource pool = TestDatabase.H2.pool(2)) {
            // only a data source: no URL and no dialect in the unit's settings
            EntityManagerFactory unit = Persistence.createEntityManagerFactory("locked-fence-test",
                    Map.of("jakarta.persistence.nonJtaDataSource", pool));
            try {
                assertNull(DatabaseDetection.fromText(String.valueOf(unit.getProperties())), "the settings name the database");
                assertEquals(Dialect.of(LockDatabase.H2).fence(true), FenceDetection.of(unit));
            } finally {
                unit.close();
            }
        }
    }

    @Test
    void missingFenceTableIsReportedAsStoreUnavailableNamingTheKey() throws Exception {
        try (Store locks = TestDatabase.H2.open(2);
             LockManager manager = LockManagerBuilder.on(locks.repository()).build();
             LockHandle handle = manager.acquire(LockRequest.of("fence:no-table"));
             Connection elsewhere = DriverManager.getConnection("jdbc:h2:mem:locked-no-fence-table", "sa", "")) {
            elsewhere.setAutoCommit(false);
            LockStoreUnavailableException failed = assertThrows(LockStoreUnavailableException.class,
                    () -> LockFence.check(elsewhere, handle));
            assertTrue(failed.getMessage().contains("fence:no-table") && failed.getMessage().contains("locked_fence"),
                    failed.getMessage());
            assertInstanceOf(SQLException.class, failed.getCause());
            elsewhere.rollback();
        }
    }
}
