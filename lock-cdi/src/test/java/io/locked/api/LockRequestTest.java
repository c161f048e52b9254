package io.locked.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad input is refused with an IllegalArgumentException that names the bad value. */
class LockRequestTest {

    @Test
    void nullKey() {
        assertMessage(() -> LockRequest.of(null), "Lock key must not be null");
    }

    @Test
    void blankKey() {
        assertMessage(() -> LockRequest.of("   "), "must not be blank, was '   '");
    }

    @Test
    void oversizedKey() {
        String key = "k".repeat(256);
        assertMessage(() -> LockRequest.of(key), "at most 255 characters, was 256");
        assertEquals(255, LockRequest.of("k".repeat(255)).key().length(), "255 characters fit the column");
    }

    @Test
    void minimumHoldAndLockDelay() {
        assertMessage(() -> LockRequest.of("job").holdAtLeast(Duration.ofSeconds(-1)),
                "Lock holdAtLeast must be zero or positive and at most 365 days for key 'job', was PT-1S");
        assertMessage(() -> LockRequest.of("job").mode(LockMode.OPTIMISTIC).lockDelay(Duration.ofDays(400)), "was PT9600H");
        assertMessage(() -> LockRequest.of("job").lockDelay(Duration.ofSeconds(5)), "lockDelay needs OPTIMISTIC mode for key 'job'");
        assertEquals(Duration.ofSeconds(5), LockRequest.of("job").mode(LockMode.OPTIMISTIC).lockDelay(Duration.ofSeconds(5))
                .holdAtLeast(Duration.ofMinutes(1)).lockDelay(), "the withers keep each other's values");
    }

    /** A reader joins its JVM's group, whose slot another reader took: a hold or delay of its own cannot apply. */
    @Test
    void noMinimumHoldNorLockDelayOnARead() {
        assertMessage(() -> LockRequest.of("report").read().holdAtLeast(Duration.ofMinutes(1)),
                "Lock holdAtLeast needs type EXCLUSIVE or WRITE for key 'report', was READ");
        assertMessage(() -> LockRequest.of("report").mode(LockMode.OPTIMISTIC).lockDelay(Duration.ofSeconds(5)).read(),
                "Lock lockDelay needs type EXCLUSIVE or WRITE for key 'report', was READ");
        assertEquals(Duration.ofMinutes(1), LockRequest.of("report").write().holdAtLeast(Duration.ofMinutes(1)).holdAtLeast(),
                "a write may hold the key");
    }

    @Test
    void negativeWait() {
        assertMessage(() -> LockRequest.of("order:1").waitFor(Duration.ofSeconds(-1)), "was PT-1S");
    }

    @Test
    void zeroAndNegativeLease() {
        assertMessage(() -> LockRequest.of("order:1").leaseFor(Duration.ZERO), "Lock lease must be positive for key 'order:1', was PT0S");
        assertMessage(() -> LockRequest.of("order:1").leaseFor(Duration.ofMillis(-5)), "was PT-0.005S");
    }

    @Test
    void leaseOverAYearOrTooLargeToCount() {
        assertMessage(() -> LockRequest.of("order:1").leaseFor(Duration.ofDays(366)), "at most 365 days for key 'order:1'");
        assertMessage(() -> LockRequest.of("order:1").leaseFor(Duration.ofSeconds(Long.MAX_VALUE)), "at most 365 days");
        assertEquals(Duration.ofDays(365), LockRequest.of("order:1").leaseFor(Duration.ofDays(365)).lease());
    }

    @Test
    void keyWithNulOrALoneSurrogateCannotBeStoredAsWritten() {
        assertMessage(() -> LockRequest.of("order:\0"), "must not contain U+0000 (at index 6)");
        assertMessage(() -> LockRequest.of("order:\uD83D"), "lone surrogate U+D83D (at index 6)");
        assertMessage(() -> LockRequest.of("order:\uDE00x"), "lone surrogate U+DE00 (at index 6)");
        assertMessage(() -> LockRequest.of("\uDE00\uD83D"), "lone surrogate U+DE00 (at index 0)");
        assertEquals("order:\uD83D\uDE00", LockRequest.of("order:\uD83D\uDE00").key(), "a surrogate pair is one character");
    }

    @Test
    void nullMode() {
        assertMessage(() -> LockRequest.of("order:1").mode(null), "Lock mode must not be null for key 'order:1'");
    }

    @Test
    void zeroWaitIsATryOnce() {
        assertEquals(Duration.ZERO, LockRequest.of("order:1").waitFor(Duration.ZERO).maxWait());
    }

    @Test
    void builderRefusesNullRepository() {
        assertMessage(() -> LockManagerBuilder.on(null), "Lock repository must not be null");
    }

    private static void assertMessage(Runnable call, String expected) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(error.getMessage().contains(expected), "expected <" + expected + "> in <" + error.getMessage() + ">");
    }
}
