package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.fencing.PausedHolderView;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.jpa.testing.server.ClockedMariaDb;
import io.locked.jpa.testing.server.ServerProcess;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A database clock that steps back, on a private MariaDB whose clock the test steps (libfaketime):
 * no token falls to or below one already used, whichever lock store of the table draws next.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClockStepBackTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    /** The step back of the reproduction, beyond what a scene's own steps took. */
    private static final Duration STEP_BACK = Duration.ofSeconds(2);
    private final Path serverDir = Path.of("target", "clock-step-back", Long.toString(ProcessHandle.current().pid()))
            .toAbsolutePath();
    private final Map<String, Store> stores = new HashMap<>();
    private ClockedMariaDb server;

    @BeforeAll
    void startServer() throws Exception {
        Files.createDirectories(serverDir);
        server = ClockedMariaDb.start(serverDir, List.of());
    }

    @AfterAll
    void stopServer() {
        stores.values().forEach(Store::close);
        if (server != null) {
            server.close();
        }
        ServerProcess.deleteTree(serverDir);
    }

    private Store store(String name, LockStatements path, LockTokens tokens) {
        return stores.computeIfAbsent(name + "/" + path + "/" + tokens, ignored -> TestDatabase.MARIADB.openAt(
                server.url(), server.user(), server.password(), 3, settings -> settings.statements(path).tokens(tokens)));
    }

    static Stream<Arguments> pathsOfTheWrittenTokenStore() {
        return Stream.of(LockStatements.NATIVE, LockStatements.JPA).map(Arguments::of);
    }

    /**
     * A JVM on clock tokens cycles a key, so that tokens above the row's committed one were used and
     * rolled back; then the clock steps back past the committed token, and a JVM on written tokens
     * (the default) locks the key: its token must pass every token the first JVM used.
     */
    @ParameterizedTest(name = "written tokens through {0}")
    @MethodSource("pathsOfTheWrittenTokenStore")
    void aWrittenTokenStoreDrawsAboveTokensAClockTokenStoreRolledBackBeforeTheClockSteppedBack(LockStatements path)
            throws Exception {
        LockRepository clock = store("clock", LockStatements.NATIVE, LockTokens.CLOCK).repository();
        LockRepository written = store("written", path, LockTokens.WRITTEN).repository();
        String key = "mixed-tokens:" + UUID.randomUUID();
        List<Long> used = new ArrayList<>();
        // until a release rolled its token back: a key's first release in a store commits
        while (used.isEmpty() || used.get(used.size() - 1) <= committedToken(key)) {
            assertTrue(used.size() < 100, "no release of clock tokens rolled back: " + used);
            used.add(cycle(clock, key));
        }
        long lastUsed = used.get(used.size() - 1);
        long committed = committedToken(key);
        // back past the committed token by the two seconds, whatever the cycles took
        server.stepClock(STEP_BACK.plusNanos((lastUsed - committed) * 1000).negated());
        assertTrue(serverClockMicros() < committed, "the scene needs the clock behind the committed token");

        long next = cycle(written, key);

        assertTrue(next > lastUsed, "a written-token store drew " + next + " after the clock stepped back, not above "
                + lastUsed + ", which a clock-token store used (committed: " + committed + ")");
        assertEquals(next, committedToken(key), "written tokens commit");
    }

    /**
     * A pessimistic holder's token is its lock statement's uncommitted write, which ending its session
     * rolls back. After a step back the clock is below that token: the forced release must still draw
     * above it, and raise the key's fence past it, so that the ended holder's writes are refused.
     */
    @ParameterizedTest(name = "{0} tokens")
    @EnumSource(LockTokens.class)
    void aForcedReleaseAfterAStepBackFencesAboveTheEndedHold(LockTokens tokens) throws Exception {
        LockManager holding = LockManagerBuilder.on(store("holding", LockStatements.NATIVE, tokens).repository()).build();
        LockManager operator = LockManagerBuilder.on(store("operator", LockStatements.NATIVE, LockTokens.WRITTEN)
                .repository()).build();
        String key = "forced-after-step:" + UUID.randomUUID();
        try (Connection business = server.connect()) {
            holding.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC)).close();
            LockHandle ended = holding.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC));
            server.stepClock(STEP_BACK.negated());
            assertTrue(serverClockMicros() < ended.token(), "the scene needs the clock behind the hold's token");

            assertTrue(operator.forceRelease(key).isPresent(), "the forced release found no hold");

            long forced = committedToken(key);
            assertTrue(forced > ended.token(), "the forced release left the token " + forced
                    + ", not above the ended hold's " + ended.token());
            business.setAutoCommit(false);
            LockLostException refused = assertThrows(LockLostException.class,
                    () -> LockFence.check(business, PausedHolderView.of(ended)),
                    "the ended holder's fenced write was admitted after the forced release");
            business.rollback();
            assertTrue(refused.getMessage().contains(key), refused.getMessage());
            assertThrows(LockLostException.class, ended::close, "the ended holder was not told");
            try (LockHandle next = operator.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC).maxWait(WAIT))) {
                assertTrue(next.token() > ended.token(), "the next holder's token " + next.token()
                        + " is not above the ended hold's " + ended.token());
            }
        } finally {
            holding.close();
            operator.close();
        }
    }

    /**
     * A row passed to the next holder of its JVM after the clock stepped back below the holder's token: the
     * plain hand-over finds the clock not above the row's token and writes nothing, and the lock statement draws
     * the next token above the holder's, as one behind the clock, whose release commits it.
     */
    @Test
    void aHandOverAfterAStepBackDrawsAboveTheHoldersTokenAndCommitsIt() throws Exception {
        LockRepository clock = store("hand-over", LockStatements.NATIVE, LockTokens.CLOCK).repository();
        String key = "hand-over-after-step:" + UUID.randomUUID();
        // a key's first release in a store commits; the hold after it is an ordinary one
        cycle(clock, key);
        PessimisticHold first = clock.lockPessimistic(key, UUID.randomUUID().toString(), "first", WAIT);
        assertNotNull(first, "nobody else holds " + key);
        PessimisticHold second;
        try {
            server.stepClock(STEP_BACK.negated());
            assertTrue(serverClockMicros() < first.token(), "the scene needs the clock behind the hold's token");

            second = first.handOver(UUID.randomUUID().toString(), "second");
        } finally {
            first.release(); // ends the transaction where it was not passed on; a no-op where it was
        }

        assertNotNull(second, "the hold was not handed over after the step back");
        try {
            assertTrue(second.token() > first.token(), "the next holder drew " + second.token()
                    + ", not above the first holder's " + first.token());
            // drawn behind the clock: its release must commit it, so it is passed on no further
            assertNull(second.handOver(UUID.randomUUID().toString(), "third"), "a hold drawn behind the clock was passed on");
        } finally {
            assertTrue(second.release(), "the release of a live hold");
        }
        assertEquals(second.token(), committedToken(key), "a token drawn behind the clock is committed at its release");
    }

    private static long cycle(LockRepository repository, String key) {
        PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "step-back", WAIT);
        assertNotNull(hold, "nobody else holds " + key);
        assertTrue(hold.release(), "the release of a live hold");
        return hold.token();
    }

    private long serverClockMicros() throws SQLException {
        try (Connection connection = server.connect(); PreparedStatement read = connection.prepareStatement(
                "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))");
             ResultSet now = read.executeQuery()) {
            now.next();
            return now.getLong(1);
        }
    }

    private long committedToken(String key) throws SQLException {
        try (Connection connection = server.connect();
             PreparedStatement read = connection.prepareStatement("SELECT token FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the key has a row");
                return row.getLong(1);
            }
        }
    }
}
