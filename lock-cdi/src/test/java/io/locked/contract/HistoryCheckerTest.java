package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker must be able to fail: it is shown histories that are wrong. */
class HistoryCheckerTest {

    @Test
    void acceptsSequentialHistoryWithIncreasingTokens() {
        List<CriticalSection> history = List.of(
                new CriticalSection("b", 2, 30, 40), new CriticalSection("a", 1, 10, 20), new CriticalSection("c", 5, 40, 41));
        assertEquals(List.of(), HistoryChecker.violations(history));
    }

    @Test
    void findsOverlap() {
        List<String> violations = HistoryChecker.violations(List.of(
                new CriticalSection("a", 1, 10, 25), new CriticalSection("b", 2, 20, 30)));
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).startsWith("overlap"), violations.toString());
    }

    @Test
    void findsTokenThatDidNotIncrease() {
        List<String> violations = HistoryChecker.violations(List.of(
                new CriticalSection("a", 7, 10, 20), new CriticalSection("b", 7, 21, 30)));
        assertEquals(1, violations.size(), violations.toString());
        assertTrue(violations.get(0).startsWith("token not increasing"), violations.toString());
    }

    @Test
    void roundTripsThroughText() {
        CriticalSection section = new CriticalSection("host/12/worker-3", 1_700_000_000_000_123L, 5, 9);
        assertEquals(section, CriticalSection.parse(section.toLine()));
    }
}
