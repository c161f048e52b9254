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

    /** A paused holder's section spans several later ones: each of them overlaps it, not only the next. */
    @Test
    void findsEveryOverlapWithOneLongSection() {
        List<String> violations = HistoryChecker.violations(List.of(
                new CriticalSection("paused", 1, 10, 100), new CriticalSection("b", 2, 20, 30),
                new CriticalSection("c", 3, 40, 50), new CriticalSection("d", 4, 60, 70)));
        assertEquals(3, violations.stream().filter(v -> v.startsWith("overlap")).count(), violations.toString());
    }

    @Test
    void anOverlapWithAHolderThatWasToldItLostTheLockIsSignalledNotSilent() {
        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(
                new CriticalSection("paused", 1, 10, 100, true), new CriticalSection("b", 2, 20, 30),
                new CriticalSection("c", 3, 40, 50)));
        assertEquals(List.of(), verdict.silent());
        assertEquals(2, verdict.signalled().size(), verdict.signalled().toString());
        assertEquals(1, verdict.lossesSignalled());
    }

    @Test
    void anOverlapNeitherHolderWasToldAboutIsSilent() {
        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(
                new CriticalSection("a", 1, 10, 25, true), new CriticalSection("b", 2, 30, 50),
                new CriticalSection("c", 3, 40, 60)));
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("overlap"), verdict.toString());
        assertEquals(List.of(), verdict.signalled());
    }

    @Test
    void aTokenOutOfOrderAfterASignalledLossIsSignalled() {
        // paused between acquiring (token 1) and entering: the next holder (token 2) entered first
        HistoryChecker.Verdict verdict = HistoryChecker.check(List.of(
                new CriticalSection("next", 2, 10, 20), new CriticalSection("paused", 1, 30, 40, true)));
        assertEquals(List.of(), verdict.silent());
        assertTrue(verdict.signalled().get(0).startsWith("token not increasing"), verdict.toString());
    }

    @Test
    void roundTripsThroughText() {
        CriticalSection section = new CriticalSection("host/12/worker-3", 1_700_000_000_000_123L, 5, 9);
        assertEquals(section, CriticalSection.parse(section.toLine()));
        CriticalSection lost = new CriticalSection("12/w0", 42, 5, 9, true);
        assertEquals(lost, CriticalSection.parse(lost.toLine()));
    }
}
