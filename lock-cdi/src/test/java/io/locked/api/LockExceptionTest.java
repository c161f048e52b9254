package io.locked.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** An exception names the lock key as the request named it, and says which slot where there is one. */
class LockExceptionTest {

    @Test
    void theKeyIsTheLockKeyAndTheMessageNamesTheSlot() {
        LockLostException permit = new LockLostException("render\u001F3", 7, "taken over");
        assertEquals("render", permit.key());
        assertTrue(permit.getMessage().startsWith("Lock 'render' (permit 3) (token 7)"), permit.getMessage());
        assertEquals("catalog", new LockStoreUnavailableException("catalog\u001Fw", "down", null).key());
        assertTrue(new LockStoreUnavailableException("catalog\u001Fr12", "down", null).getMessage()
                .contains("'catalog' (reader slot 12)"));
        assertTrue(new LockInterruptedException("catalog\u001Fw", null).getMessage().contains("'catalog' (writer)"));
        LockLostException exclusive = new LockLostException("order:42", 1, "expired");
        assertEquals("order:42", exclusive.key());
        assertTrue(exclusive.getMessage().startsWith("Lock 'order:42' (token 1)"), exclusive.getMessage());
    }

    @Test
    void aWaitIsWrittenAsUsersWriteIt() {
        assertEquals("Lock 'order:42' not acquired within 10s",
                new LockNotAcquiredException("order:42", java.time.Duration.ofSeconds(10)).getMessage());
        assertEquals("Lock 'order:42' not acquired within 250ms: no database connection (pool 'app')",
                new LockNotAcquiredException("order:42", java.time.Duration.ofMillis(250),
                        LockNotAcquiredException.Reason.NO_CONNECTION, "pool 'app'").getMessage());
    }
}
