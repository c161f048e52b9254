package io.locked.jpa.internal.dialect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.LockStatements;
import io.locked.jpa.LockTokens;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A forced release on PostgreSQL ends the hold it inspected, not a later hold of the same session: the hold
 * released between the inspection and the end, and its session locked the key again (the pool lent it back to
 * the next holder, or the holder passed the row on in its transaction). Seen in the randomized run: the later
 * holder was ended, and told of a loss that no forced release of its own explained.
 */
class PostgreSqlHolderEndTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** Tries at getting the pool to lend the first hold's session to the second. */
    private static final int TRIES = 20;

    @Test
    void theEndOfAnInspectedHoldSparesALaterHoldOfTheSameSession() throws Exception {
        Dialect postgresql = Dialects.of(LockDatabase.POSTGRESQL);
        try (Store store = TestDatabase.POSTGRESQL.open(2, Map.of(),
                settings -> settings.statements(LockStatements.NATIVE).tokens(LockTokens.CLOCK));
             Connection operator = TestDatabase.POSTGRESQL.connect()) {
            LockRepository repository = store.repository();
            String key = "holder-end:" + UUID.randomUUID();
            for (int i = 0; i < TRIES; i++) {
                PessimisticHold first = repository.lockPessimistic(key, UUID.randomUUID().toString(), "first", WAIT);
                LockRowState inspected = repository.inspect(key).orElseThrow();
                assertEquals(first.token(), inspected.token(), "inspection of " + inspected);
                assertTrue(first.release());
                PessimisticHold later = repository.lockPessimistic(key, UUID.randomUUID().toString(), "later", WAIT);
                assertNotNull(later);
                String laterSession = repository.inspect(key).orElseThrow().databaseSession();
                if (!inspected.databaseSession().equals(laterSession)) {
                    assertTrue(later.release());
                    continue; // the pool lent the other connection: no later hold of the same session to spare
                }
                long session = Long.parseLong(inspected.databaseSession());

                assertFalse(postgresql.endHold(operator, key, inspected.token(), inspected.holder(), session),
                        "the end of the inspected hold ended a later hold of its session");
                assertTrue(later.isAlive(WAIT), "the later hold's session");
                // the control: the later hold's own end ends it
                assertTrue(postgresql.endHold(operator, key, later.token(), "later", session), "the later hold's own end");
                assertFalse(later.release(), "the later hold's release after its session was ended");
                return;
            }
            fail("the pool never lent the first hold's session to the second in " + TRIES + " tries");
        }
    }
}
