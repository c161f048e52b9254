package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An operator in this JVM looks at a key another JVM holds, in both modes (a pessimistic holder's
 * row change is uncommitted there), forces its release, and the holder JVM learns it: its fenced
 * write is refused, its handle turns invalid, its close throws; the key then shows as free.
 */
class InspectionAcrossJvmsTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"MARIADB, PESSIMISTIC", "MARIADB, OPTIMISTIC", "POSTGRESQL, PESSIMISTIC", "POSTGRESQL, OPTIMISTIC",
            "MYSQL8, PESSIMISTIC", "MYSQL8, OPTIMISTIC"})
    void anotherJvmsHolderIsSeenAndLearnsOfItsForcedRelease(TestDatabase database, LockMode mode) throws Exception {
        String prefix = "it:inspect:" + UUID.randomUUID() + ":";
        String key = prefix + mode;
        try (Store store = database.open(4, Map.of());
             LockManager operator = LockManagerBuilder.on(store.repository()).build();
             WorkerProcess holder = WorkerProcess.start(dir.resolve("holder.log"), database.workerEnvironment(),
                     "hold-until-forced", database.name(), mode.name(), key)) {
            String held = holder.awaitLine("HELD ", 120);
            assertNotNull(held, "the holder JVM died before taking the lock: " + holder.logTail());
            long token = Long.parseLong(held.substring("HELD ".length()));

            LockInfo seen = operator.inspect(key);
            assertTrue(seen.held(), "the other JVM's hold shows: " + seen);
            assertEquals(Optional.of(mode), seen.mode());
            assertEquals(OptionalLong.of(token), seen.token(), "its token");
            assertTrue(seen.holder().orElseThrow().contains("/" + holder.pid() + "/"), "its holder names the other process: " + seen);
            assertFalse(seen.heldByThisJvm(), "held by another JVM");
            assertTrue(seen.since().isPresent(), "since when: " + seen);
            if (mode == LockMode.PESSIMISTIC) {
                assertTrue(seen.until().isEmpty(), "a pessimistic hold has no end: " + seen);
                assertTrue(seen.databaseSession().isPresent(), "the session to end: " + seen);
            } else {
                assertTrue(seen.until().orElseThrow().isAfter(seen.since().orElseThrow()));
            }
            assertEquals(List.of(seen.key()), operator.list(prefix, null, 10).stream().map(LockInfo::key).toList());
            assertTrue(operator.list(prefix, null, 10).get(0).held(), "the listing shows it held too");

            Optional<LockInfo> ended = operator.forceRelease(key);
            assertEquals(OptionalLong.of(token), ended.orElseThrow().token(), "the hold ended is the other JVM's");
            holder.send("write");
            assertEquals("FENCE refused", holder.awaitLine("FENCE ", 60), "the old holder's fenced write");
            assertEquals("LOST", holder.awaitLine("LOST", 60), "the old holder's handle learns it");
            assertEquals("CLOSE lost", holder.awaitLine("CLOSE ", 60), "its close throws LockLostException");
            String again = holder.awaitLine("HELD-AGAIN ", 60);
            assertNotNull(again, holder.logTail());
            long next = Long.parseLong(again.substring("HELD-AGAIN ".length()));
            assertTrue(next > token, "the next token is higher");
            assertEquals("RELEASED", holder.awaitLine("RELEASED", 60));

            LockInfo released = operator.inspect(key);
            assertFalse(released.held(), "the released key shows as free: " + released);
            assertEquals(OptionalLong.of(next), released.token(), "with the last token drawn");
            System.out.printf("inspection across JVMs %s %s: seen %s; forced release; next token %d%n",
                    database, mode, seen, next);
        }
    }
}
