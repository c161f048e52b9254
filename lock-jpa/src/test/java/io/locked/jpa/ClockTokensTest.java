package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.jpa.fencing.PausedHolderView;
import io.locked.jpa.internal.transaction.TokenWrites;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.PessimisticHold;
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
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Clock tokens ({@link LockTokens#CLOCK}): a pessimistic release rolls back, so the row's committed
 * token stays behind the tokens in use, and tokens still increase; where the database's clock is
 * behind the row's committed token (a clock stepped back, simulated by moving the committed token an
 * hour ahead of the clock, or on MySQL 8 a session clock set back) every acquisition is caught, draws
 * the row's token plus one raised past every token rolled back since the row's commit, and commits
 * it, so that no token is handed out twice or goes back. The committed token is read on a connection of its own, as
 * the next JVM or a restarted server would find it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClockTokensTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long HOUR_MICROS = 3_600_000_000L;
    private static final long WRITE_PERIOD_MICROS = TokenWrites.WRITE_PERIOD.toNanos() / 1000;
    private final Map<String, Store> stores = new HashMap<>();

    static Stream<Arguments> databasesAndPaths() {
        return Stream.of(TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.POSTGRESQL, TestDatabase.MYSQL8)
                .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                        .map(path -> Arguments.of(database, path)));
    }

    @AfterAll
    void closeStores() {
        stores.values().forEach(Store::close);
    }

    private LockRepository repository(TestDatabase database, LockStatements path, LockTokens tokens) {
        return stores.computeIfAbsent(database + "/" + path + "/" + tokens,
                name -> database.open(2, Map.of(), settings -> settings.statements(path).tokens(tokens))).repository();
    }

    /**
     * Whether the store keeps clock tokens: not on MySQL's native path, whose statements read their
     * clock before the row lock, nor on H2's, whose forced release reads a hold and ends its session
     * in two statements (their releases commit as with written tokens).
     */
    private static boolean keepsClockTokens(TestDatabase database, LockStatements path) {
        return !((database == TestDatabase.MYSQL8 || database == TestDatabase.H2) && path == LockStatements.NATIVE);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndPaths")
    void releasesRollTheirTokensBackAndTokensStillIncrease(TestDatabase database, LockStatements path) throws Exception {
        String key = "clock-tokens:" + UUID.randomUUID();
        List<Long> tokens = cycle(repository(database, path, LockTokens.CLOCK), key, 20);

        assertIncreasing(tokens);
        long committed = committedToken(database, key);
        if (!keepsClockTokens(database, path)) {
            assertEquals(tokens.get(tokens.size() - 1), committed, database + "'s native path commits each token");
            return;
        }
        // the key's first release in this JVM commits its token; the next ones, within a second, roll back
        assertTrue(tokens.contains(committed), "the committed token " + committed + " is none of the tokens used " + tokens);
        assertTrue(committed < tokens.get(tokens.size() - 1), "every release committed its token: " + committed);
    }

    /** The control: with written tokens each release commits its token. */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndPaths")
    void writtenTokensAreCommittedByEachRelease(TestDatabase database, LockStatements path) throws Exception {
        String key = "written-tokens:" + UUID.randomUUID();
        List<Long> tokens = cycle(repository(database, path, LockTokens.WRITTEN), key, 5);

        assertIncreasing(tokens);
        assertEquals(tokens.get(tokens.size() - 1), committedToken(database, key));
    }

    static Stream<Arguments> databasesPathsAndTokens() {
        return databasesAndPaths().flatMap(arguments -> Stream.of(LockTokens.values())
                .map(tokens -> Arguments.of(arguments.get()[0], arguments.get()[1], tokens)));
    }

    /**
     * Written tokens too: a store on written tokens may share the table with stores on clock tokens,
     * whose rolled-back tokens it must pass after a step back.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("databasesPathsAndTokens")
    void aClockBehindTheCommittedTokenIsCaughtAndEachTokenCommitted(TestDatabase database, LockStatements path,
                                                                    LockTokens tokenSetting) throws Exception {
        LockRepository repository = repository(database, path, tokenSetting);
        String key = "clock-behind:" + UUID.randomUUID();
        cycle(repository, key, 1);
        // as if the database's clock had stepped back by an hour since the row's last commit
        long ahead = committedToken(database, key) + HOUR_MICROS;
        setCommittedToken(database, key, ahead);

        List<Long> tokens = new ArrayList<>();
        // the row's token plus one, raised once past whatever was rolled back since its commit; then,
        // the row's token being this store's own commit drawn behind the clock, plus one. MySQL's native
        // statements do not read the clock again (its tokens answer by the insert id): plus one each
        long raise = database == TestDatabase.MYSQL8 && path == LockStatements.NATIVE ? 0 : WRITE_PERIOD_MICROS;
        for (int i = 1; i <= 5; i++) {
            long token = cycle(repository, key, 1).get(0);
            tokens.add(token);
            assertEquals(ahead + raise + i, token, "acquisition " + i + " of a key whose committed token is ahead of the clock");
            assertEquals(token, committedToken(database, key), "the release of a token drawn behind the clock did not commit it");
        }
        assertIncreasing(tokens);
    }

    /**
     * A real clock behind, on MySQL 8: a second JVM's sessions read a server clock set an hour back and
     * stopped there ({@code SET timestamp}, which MySQL's token clock {@code UTC_TIMESTAMP(6)} follows).
     * Its acquisitions, after the first JVM's, are caught: each token the row's plus one, committed.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = LockStatements.class, names = {"NATIVE", "JPA"})
    void aSessionClockAnHourBehindIsCaughtOnMySql8(LockStatements path) throws Exception {
        TestDatabase database = TestDatabase.MYSQL8;
        String key = "session-clock-behind:" + UUID.randomUUID();
        List<Long> tokens = new ArrayList<>(cycle(repository(database, path, LockTokens.CLOCK), key, 3));
        long hourAgo = System.currentTimeMillis() / 1000 - 3600;
        try (Store behind = database.open(2, Map.of("sessionVariables", "timestamp=" + hourAgo),
                settings -> settings.statements(path).tokens(LockTokens.CLOCK))) {
            for (int i = 0; i < 3; i++) {
                long token = cycle(behind.repository(), key, 1).get(0);
                tokens.add(token);
                assertEquals(token, committedToken(database, key), "a token drawn behind the clock was not committed");
            }
        }
        assertIncreasing(tokens);
    }

    /**
     * The holder's row is written for the length of the hold, though never committed: another session's
     * inspection sees the holder and its token, and a forced release ends it; the next token is higher.
     * On the native path: the JPA path sees a pessimistic hold without its token, and cannot end it.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(value = TestDatabase.class, names = {"H2", "MARIADB", "POSTGRESQL", "MYSQL8"})
    void inspectionSeesAClockTokenHolderAndAForcedReleaseEndsIt(TestDatabase database) {
        LockRepository repository = repository(database, LockStatements.NATIVE, LockTokens.CLOCK);
        String key = "clock-inspect:" + UUID.randomUUID();
        cycle(repository, key, 1);
        PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "clock-holder", WAIT);
        assertNotNull(hold);
        LockRowState seen = repository.inspect(key).orElseThrow();
        assertEquals(LockMode.PESSIMISTIC, seen.mode(), "inspection of " + seen);
        assertEquals(hold.token(), seen.token(), "inspection of " + seen);

        assertTrue(repository.forceRelease(key).isPresent(), "the forced release found no hold");
        assertFalse(hold.release(), "the ended hold's release said it was still held");
        long next = cycle(repository, key, 1).get(0);
        assertTrue(next > hold.token(), next + " after the ended hold's " + hold.token());
    }

    /**
     * A fenced write persists the token it checks: the holder before, whose token was rolled back at
     * its release, is refused once its successor wrote, though the row's committed token is below both.
     */
    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("databasesAndPaths")
    void aStaleHoldersFencedWriteIsRefused(TestDatabase database, LockStatements path) throws Exception {
        LockManager manager = LockManagerBuilder.on(repository(database, path, LockTokens.CLOCK)).build();
        try (Connection business = database.connect()) {
            String key = "clock-fence:" + UUID.randomUUID();
            LockHandle earlier = manager.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC));
            earlier.close();
            LockHandle later = manager.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC));
            try {
                business.setAutoCommit(false);
                LockFence.check(business, later);
                business.commit();
            } finally {
                later.close();
            }
            if (keepsClockTokens(database, path)) {
                assertTrue(committedToken(database, key) < later.token(), "the successor's release committed its token");
            }

            LockLostException refused = assertThrows(LockLostException.class,
                    () -> LockFence.check(business, PausedHolderView.of(earlier)));
            business.rollback();
            assertTrue(refused.getMessage().contains(key), refused.getMessage());
        } finally {
            manager.close();
        }
    }

    private static List<Long> cycle(LockRepository repository, String key, int times) {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < times; i++) {
            PessimisticHold hold = repository.lockPessimistic(key, UUID.randomUUID().toString(), "clock-tokens", WAIT);
            assertNotNull(hold, "nobody else holds " + key);
            tokens.add(hold.token());
            assertTrue(hold.release(), "the release of a live hold");
        }
        return tokens;
    }

    private static void assertIncreasing(List<Long> tokens) {
        for (int i = 1; i < tokens.size(); i++) {
            assertTrue(tokens.get(i) > tokens.get(i - 1), "token " + i + " does not increase: " + tokens);
        }
    }

    private static long committedToken(TestDatabase database, String key) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement read = connection.prepareStatement("SELECT token FROM locked_lock WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                assertTrue(row.next(), "the key has a row");
                return row.getLong(1);
            }
        }
    }

    private static void setCommittedToken(TestDatabase database, String key, long token) throws SQLException {
        try (Connection connection = database.connect();
             PreparedStatement write = connection.prepareStatement("UPDATE locked_lock SET token = ? WHERE lock_key = ?")) {
            write.setLong(1, token);
            write.setString(2, key);
            assertEquals(1, write.executeUpdate());
        }
    }
}
