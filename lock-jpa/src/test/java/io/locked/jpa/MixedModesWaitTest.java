package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An optimistic take that meets a pessimistic holder's row lock waits inside the database; that
 * wait must end with the caller's, not with the server's own lock wait timeout (50 s on MariaDB,
 * none on PostgreSQL; H2's pool here is given a minute, as a server default might be).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MixedModesWaitTest {
    /** A hang detector well below the servers' own timeouts, not a speed check. */
    private static final Duration HANG = Duration.ofSeconds(25);
    private final Map<TestDatabase, Store> stores = new EnumMap<>(TestDatabase.class);

    static Stream<Arguments> databasesAndRows() {
        return Stream.of(TestDatabase.values())
                .flatMap(database -> Stream.of(Arguments.of(database, true), Arguments.of(database, false)));
    }

    @AfterAll
    void closeStores() {
        stores.values().forEach(Store::close);
    }

    private Store store(TestDatabase database) {
        return stores.computeIfAbsent(database, d -> d.open(4, d == TestDatabase.H2
                ? Map.of("LOCK_TIMEOUT", "60000") : Map.of()));
    }

    @ParameterizedTest(name = "{0}, row existed before: {1}")
    @MethodSource("databasesAndRows")
    void optimisticWaitBehindAPessimisticHolderEndsWithTheCallersWait(TestDatabase database, boolean rowExisted) {
        String key = "mixed-modes:" + UUID.randomUUID();
        Store store = store(database);
        // one manager per side, so that the waiter cannot count as the holder re-entering
        try (LockManager holders = LockManagerBuilder.on(store.repository()).build();
             LockManager waiters = LockManagerBuilder.on(store.repository()).build()) {
            if (rowExisted) {
                holders.acquire(LockRequest.of(key)).close();
            }
            try (LockHandle held = holders.acquire(LockRequest.of(key).mode(LockMode.PESSIMISTIC))) {
                LockRequest optimistic = LockRequest.of(key).mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(1));
                LockNotAcquiredException refused = assertTimeoutPreemptively(HANG,
                        () -> assertThrows(LockNotAcquiredException.class, () -> waiters.acquire(optimistic)));
                assertEquals(key, refused.key());
            }
        }
    }
}
