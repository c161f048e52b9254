package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.PostgreSqlSchema;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A lease that runs out while a pessimistic lock statement runs on PostgreSQL, where
 * {@code clock_timestamp()} moves within a statement: the statement must judge the row once, so
 * that the token it hands out is a new one whenever it says the key was free.
 *
 * <p>To make "runs out while the statement runs" certain rather than likely, the table lives in a
 * schema of this test's own, with a BEFORE UPDATE trigger that waits, in the middle of the
 * statement, until the lease it is about to overwrite has expired. No other test sees that table.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PostgreSqlLeaseExpiringMidStatementTest {
    private static final String SCHEMA = "locked_lease_expires_mid_statement";
    private static final Duration LEASE = Duration.ofSeconds(2);
    private PostgreSqlSchema schema;
    private Store store;

    @BeforeAll
    void tableWithATriggerThatWaitsForTheLeaseToRunOut() throws SQLException {
        schema = PostgreSqlSchema.create(SCHEMA, 2);
        store = schema.store();
        // only an update that keeps a live lease's owner (a pessimistic attempt on a leased row) waits
        PostgreSqlSchema.execute("CREATE FUNCTION " + SCHEMA + ".wait_for_expiry() RETURNS trigger LANGUAGE plpgsql AS $$"
                + " BEGIN"
                + "   IF OLD.owner IS NOT NULL AND NEW.owner IS NOT DISTINCT FROM OLD.owner THEN"
                + "     WHILE OLD.expires_at > clock_timestamp() LOOP PERFORM pg_sleep(0.01); END LOOP;"
                + "   END IF;"
                + "   RETURN NEW;"
                + " END $$",
                "CREATE TRIGGER wait_for_expiry BEFORE UPDATE ON " + SCHEMA + ".locked_lock"
                        + " FOR EACH ROW EXECUTE FUNCTION " + SCHEMA + ".wait_for_expiry()");
    }

    @AfterAll
    void dropSchema() throws SQLException {
        if (schema != null) {
            schema.close();
        }
    }

    @Test
    void pessimisticLockThatFindsTheLeaseExpiredDrawsANewToken() throws SQLException {
        String key = "mid-statement:" + UUID.randomUUID();
        Lease lease = store.repository().takeLease(key, UUID.randomUUID().toString(), "lease holder", LEASE, Duration.ZERO);
        assertNotNull(lease, "the key was free");
        assertTrue(leaseLeftMillis(key) > 500, "the lock statement must start while the lease is still live");

        PessimisticHold hold = store.repository().lockPessimistic(key, UUID.randomUUID().toString(), "row holder",
                Duration.ofSeconds(30));
        if (hold != null) {
            try {
                assertTrue(hold.token() > lease.token(), "a free answer came with the expired lease's token "
                        + lease.token() + " handed out again: " + hold.token());
            } finally {
                hold.release();
            }
        }
    }

    private long leaseLeftMillis(String key) throws SQLException {
        try (Connection connection = TestDatabase.POSTGRESQL.connect();
             PreparedStatement read = connection.prepareStatement("SELECT EXTRACT(EPOCH FROM expires_at - clock_timestamp()) * 1000"
                     + " FROM " + SCHEMA + ".locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
