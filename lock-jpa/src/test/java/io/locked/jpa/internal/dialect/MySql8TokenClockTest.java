package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MySQL's tokens are microseconds of UTC whatever the session's time zone: they are read from
 * {@code UTC_TIMESTAMP(6)}, never through the session's zone. A token of a new key lies between two
 * readings of the server's UTC clock taken before and after its acquisition; one read in the wrong
 * zone would be hours off.
 */
class MySql8TokenClockTest {
    @ParameterizedTest(name = "session time zone {0}")
    @ValueSource(strings = {"-05:00", "+09:00", "SYSTEM"})
    void tokensOfNewKeysAreTheServersUtcMicroseconds(String zone) throws Exception {
        try (Store store = TestDatabase.MYSQL8.open(2, Map.of("sessionVariables", "time_zone='" + zone + "'"))) {
            LockRepository repository = store.repository();
            long before = utcMicros();
            PessimisticHold hold = repository.lockPessimistic("clock:p:" + UUID.randomUUID(), UUID.randomUUID().toString(),
                    "clock", Duration.ZERO);
            assertNotNull(hold, "a new key is free");
            hold.release();
            Lease lease = repository.takeLease("clock:o:" + UUID.randomUUID(), UUID.randomUUID().toString(), "clock",
                    Duration.ofSeconds(30), Duration.ZERO);
            assertNotNull(lease, "a new key is free");
            repository.releaseLease(lease);
            long after = utcMicros();
            for (long token : new long[] {hold.token(), lease.token()}) {
                assertTrue(before <= token && token <= after, "token " + token + " is not between the server's UTC"
                        + " microseconds " + before + " and " + after + " read around it (session zone " + zone + ")");
            }
        }
    }

    private static long utcMicros() throws SQLException {
        try (Connection connection = TestDatabase.MYSQL8.connect(); Statement statement = connection.createStatement();
             ResultSet now = statement.executeQuery(
                     "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))")) {
            now.next();
            return now.getLong(1);
        }
    }
}
