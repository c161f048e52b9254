package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockStatements;
import io.locked.jpa.testing.LockWaitsAndClock;
import io.locked.jpa.testing.OutsideRowLocks;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * PostgreSQL's hand-over, after a wait for its row: a plain {@code UPDATE} computes its new values
 * (the new token among them) before it waits for the row lock, and keeps them if the transaction it
 * waited for rolls back. A pessimistic acquirer that got the row after the lease ran out drew a token
 * from a later clock, used it, and rolled back (clock tokens, or its session ended): a hand-over
 * computed before the wait would hand the successor a lower token than that, on a lease that had run
 * out. The statement runs here with a lock wait long enough for the lease to run out during it (the
 * lock manager gives it a second); the outside session stands for that acquirer.
 */
class PostgreSqlHandOverAfterAWaitTest {
    private static final Duration LEASE = Duration.ofSeconds(3);

    @Test
    @Timeout(60)
    void aHandOverThatWaitedPastTheLeasesEndHandsNothingOverBelowATokenDrawnMeanwhile() throws Exception {
        TestDatabase database = TestDatabase.POSTGRESQL;
        Dialect postgres = Dialect.of(LockDatabase.POSTGRESQL);
        ExecutorService handing = Executors.newSingleThreadExecutor();
        try (Store store = database.open(2, Map.of(), settings -> settings.statements(LockStatements.NATIVE))) {
            String key = "hand-over-after-a-wait:" + UUID.randomUUID();
            Lease lease = store.repository().takeLease(key, "owner-giver", "giver", LEASE, Duration.ZERO);
            assertNotNull(lease);
            Instant end = store.repository().inspect(key).orElseThrow().until();
            long drawnMeanwhile;
            Future<OptionalLong> handedOver;
            try (Connection acquirer = database.connect()) {
                OutsideRowLocks.lock(acquirer, key);
                handedOver = handing.submit(() -> handOver(database, postgres, lease));
                LockWaitsAndClock.awaitRowLockWait(database);
                Assumptions.assumeTrue(LockWaitsAndClock.clock(database).isBefore(end),
                        "the hand-over was seen waiting only after the lease's end: this run cannot tell");
                LockWaitsAndClock.awaitClockPast(database, end);
                // the acquirer finds the lease run out, draws its token from the clock, uses it, rolls back
                try (PreparedStatement draw = acquirer.prepareStatement("UPDATE locked_lock SET token = GREATEST(token + 1, "
                        + postgres.tokenMicros + ") WHERE lock_key = ? RETURNING token")) {
                    draw.setString(1, key);
                    try (ResultSet token = draw.executeQuery()) {
                        token.next();
                        drawnMeanwhile = token.getLong(1);
                    }
                }
                acquirer.rollback();
            }
            OptionalLong token = handedOver.get(60, TimeUnit.SECONDS);
            assertFalse(token.isPresent() && token.getAsLong() <= drawnMeanwhile, "the hand-over gave the successor token "
                    + token + ", not above " + drawnMeanwhile + ", which an acquirer drew and used after the lease ran out");
            assertFalse(token.isPresent(), "a lease that ran out while its hand-over waited for the row was handed over");
        } finally {
            handing.shutdownNow();
        }
    }

    /** The hand-over statement with a lock wait of a minute: the successor's token, if it handed the lease over. */
    private static OptionalLong handOver(TestDatabase database, Dialect postgres, Lease lease) throws Exception {
        try (Connection connection = database.connect();
             PreparedStatement handOver = connection.prepareStatement(postgres.handOverLease())) {
            handOver.setString(1, postgres.lockWaitParameter(60_000));
            handOver.setString(2, "owner-successor");
            handOver.setString(3, "successor");
            handOver.setLong(4, Duration.ofSeconds(30).toNanos() / 1000);
            handOver.setString(5, lease.key());
            handOver.setString(6, lease.owner());
            handOver.setLong(7, lease.token());
            handOver.execute();
            handOver.getMoreResults();
            try (ResultSet row = handOver.getResultSet()) {
                return row != null && row.next() ? OptionalLong.of(row.getLong(1)) : OptionalLong.empty();
            }
        }
    }
}
