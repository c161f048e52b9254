package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A reader's token with clock tokens ({@link LockTokens#CLOCK}), where a {@code PESSIMISTIC} writer's
 * release rolls its token back and the writer row keeps the last committed one: the reader's token is then
 * below the last writer's, never above it, and every later writer's is above it (the read/write contract
 * checks the same with written tokens).
 */
class ReaderTokensUnderClockTokensTest {

    static Stream<Arguments> storesWithSharedRowLocks() {
        return Stream.of(TestDatabase.MARIADB, TestDatabase.POSTGRESQL)
                .flatMap(database -> Stream.of(LockStatements.NATIVE, LockStatements.JPA)
                        .map(path -> Arguments.of(database, path)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("storesWithSharedRowLocks")
    void aReadersTokenIsNeverAboveTheLastWritersAndBelowTheNext(TestDatabase database, LockStatements path) {
        String key = "reader-token:" + UUID.randomUUID();
        try (Store store = database.open(4, Map.of(), settings -> settings.statements(path).tokens(LockTokens.CLOCK));
             LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            for (int cycle = 0; cycle < 5; cycle++) {
                long written = tokenOf(locks, key, LockType.WRITE);
                long read = tokenOf(locks, key, LockType.READ);
                long next = tokenOf(locks, key, LockType.WRITE);
                assertTrue(read <= written, "a reader's token " + read + " above the last writer's " + written);
                assertTrue(next > read && next > written, "the next writer's token " + next + " not above the reader's "
                        + read + " and the last writer's " + written);
            }
        }
    }

    private static long tokenOf(LockManager locks, String key, LockType type) {
        try (LockHandle held = locks.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC).type(type)
                .maxWait(Duration.ofSeconds(10)))) {
            return held.token();
        }
    }
}
