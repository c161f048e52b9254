package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.contract.LockContractTest;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The lock contract on one real database through JPA, ending with the promise that the pool has
 * every connection back and the server has no transaction of ours left open.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class JpaLockContractSuite extends LockContractTest {
    private Store store;

    abstract TestDatabase database();

    @BeforeAll
    void openStore() {
        store = database().open(16);
    }

    @AfterAll
    void closeStore() throws Exception {
        if (store == null) {
            return;
        }
        try {
            assertNoConnectionOrTransactionLeft();
        } finally {
            store.close();
        }
    }

    private void assertNoConnectionOrTransactionLeft() throws Exception {
        // a release in flight on another thread may still hold its connection for a moment
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (store.borrowedConnections() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(0, store.borrowedConnections(), "connections still borrowed from the pool");
        assertEquals(0, store.openTransactionsOnServer(), "transactions left open on the server");
    }

    @Override
    protected LockRepository repository() {
        return store.repository();
    }

    @Override
    protected boolean rowExists(String key) {
        return store.rowExists(key);
    }

    @Test
    void detectsItsDatabase() {
        assertEquals(expectedFamily(), store.repository().database());
    }

    private LockDatabase expectedFamily() {
        return switch (database()) {
            case H2 -> LockDatabase.H2;
            case MARIADB -> LockDatabase.MYSQL;
            case POSTGRESQL -> LockDatabase.POSTGRESQL;
        };
    }

    @Test
    void rejectsNonPositiveIdleTime() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> store.repository().deleteIdleRows(Duration.ZERO));
    }
}
