package io.locked.internal.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The edges of one asynchronous attempt, each made to happen rather than hoped for: a cancel before the
 * attempt starts, during its wait, and just after its hold was got.
 */
class AsyncAttemptTest {
    private final List<String> givenBack = new ArrayList<>();

    @Test
    void aCancelBeforeTheAttemptStartsMeansNoWaitAtAll() {
        AtomicBoolean waited = new AtomicBoolean();
        AsyncAttempt<String> attempt = new AsyncAttempt<>(() -> {
            waited.set(true);
            return "hold";
        }, givenBack::add);
        assertTrue(attempt.cancel(false));
        attempt.run();
        assertFalse(waited.get(), "a cancelled attempt never starts its wait");
        assertTrue(givenBack.isEmpty());
    }

    @Test
    void aHoldGotAsTheCallerCancelledIsGivenBackAtOnce() {
        AsyncAttempt<String>[] self = new AsyncAttempt[1];
        self[0] = new AsyncAttempt<>(() -> {
            self[0].cancel(true); // the caller gives up after the store granted the hold
            return "hold";
        }, givenBack::add);
        self[0].run();
        assertTrue(self[0].isCancelled());
        assertEquals(List.of("hold"), givenBack, "the hold nobody will close is released, not left to its lease");
        assertFalse(Thread.currentThread().isInterrupted(), "the cancel's interrupt was meant for the wait only");
    }

    @Test
    void aCancelDuringTheWaitInterruptsTheWaitingThreadAndNothingElse() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        AsyncAttempt<String> attempt = new AsyncAttempt<>(() -> {
            waiting.countDown();
            try {
                new CountDownLatch(1).await(); // a wait that only an interrupt ends
                return "hold";
            } catch (InterruptedException interrupted) {
                throw new IllegalStateException("wait ended by an interrupt", interrupted);
            }
        }, givenBack::add);
        Thread thread = new Thread(attempt);
        thread.start();
        assertTrue(waiting.await(10, TimeUnit.SECONDS));
        assertTrue(attempt.cancel(false));
        thread.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(thread.isAlive(), "the interrupt ended the wait");
        assertTrue(givenBack.isEmpty(), "no hold was got");
    }
}
