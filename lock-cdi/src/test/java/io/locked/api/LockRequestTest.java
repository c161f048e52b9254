package io.locked.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A request is a value that grows by withers without breaking callers; bad input is refused with an
 * IllegalArgumentException that names the bad value.
 */
class LockRequestTest {

    @Test
    void aRequestIsAFinalValueWithoutAPublicConstructor() {
        assertTrue(Modifier.isFinal(LockRequest.class.getModifiers()), "no subclass can change what a request is");
        assertEquals(0, LockRequest.class.getConstructors().length, "requests are made by of(...) and withers only");
        assertFalse(LockRequest.class.isRecord(), "a record's canonical constructor would be public API");
    }

    @Test
    void withersReturnCopiesAndEqualRequestsAreEqual() {
        LockRequest base = LockRequest.of("order:42");
        LockRequest changed = base.mode(LockMode.OPTIMISTIC).maxWait(Duration.ofSeconds(5)).lease(Duration.ofSeconds(9))
                .name("order").holdAtLeast(Duration.ofMinutes(1)).lockDelay(Duration.ofSeconds(2));
        assertEquals(LockMode.PESSIMISTIC, base.mode(), "the original is left as it was");
        assertEquals(LockRequest.DEFAULT_WAIT, base.maxWait());
        assertEquals(List.of(LockMode.OPTIMISTIC, Duration.ofSeconds(5), Duration.ofSeconds(9), "order", Duration.ofMinutes(1),
                Duration.ofSeconds(2), 0, LockType.EXCLUSIVE), List.of(changed.mode(), changed.maxWait(), changed.lease(),
                changed.name(), changed.holdAtLeast(), changed.lockDelay(), changed.permits(), changed.type()));
        LockRequest same = LockRequest.of("order:42").lockDelay(Duration.ZERO).mode(LockMode.OPTIMISTIC)
                .lockDelay(Duration.ofSeconds(2)).holdAtLeast(Duration.ofMinutes(1)).name("order").lease(Duration.ofSeconds(9))
                .maxWait(Duration.ofSeconds(5));
        assertEquals(changed, same, "the same settings in another order");
        assertEquals(changed.hashCode(), same.hashCode());
        assertNotEquals(changed, same.permits(2));
        assertNotEquals(changed, same.write());
        assertEquals(LockType.READ, base.read().type());
        assertEquals(3, base.permits(3).permits());
        assertTrue(changed.toString().contains("order:42") && changed.toString().contains("lock-delay PT2S"), changed.toString());
    }

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
        assertMessage(() -> LockRequest.of("order:1").maxWait(Duration.ofSeconds(-1)), "was PT-1S");
    }

    @Test
    void zeroAndNegativeLease() {
        assertMessage(() -> LockRequest.of("order:1").lease(Duration.ZERO), "Lock lease must be positive for key 'order:1', was PT0S");
        assertMessage(() -> LockRequest.of("order:1").lease(Duration.ofMillis(-5)), "was PT-0.005S");
    }

    @Test
    void leaseOverAYearOrTooLargeToCount() {
        assertMessage(() -> LockRequest.of("order:1").lease(Duration.ofDays(366)), "at most 365 days for key 'order:1'");
        assertMessage(() -> LockRequest.of("order:1").lease(Duration.ofSeconds(Long.MAX_VALUE)), "at most 365 days");
        assertEquals(Duration.ofDays(365), LockRequest.of("order:1").lease(Duration.ofDays(365)).lease());
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
        assertEquals(Duration.ZERO, LockRequest.of("order:1").maxWait(Duration.ZERO).maxWait());
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
