package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.PermitHistoryChecker.PermitSection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The permit checker on histories written by hand: each rule fails on the history that breaks it. */
class PermitHistoryCheckerTest {

    private static PermitSection section(String slot, long token, long enter, long exit, boolean lost) {
        return new PermitSection("k\u001F" + slot, new CriticalSection("t" + token, token, enter, exit, lost));
    }

    @Test
    void holdersUpToTheCountSideBySideAreCorrect() {
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(List.of(
                section("1", 1, 0, 10, false), section("2", 1, 1, 10, false), section("1", 2, 10, 20, false)), 2);
        assertEquals(List.of(), verdict.silent());
        assertEquals(List.of(), verdict.signalled());
        assertEquals(2, verdict.mostInsideAtOnce());
    }

    @Test
    void moreHoldersThanPermitsAreASilentViolation() {
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(List.of(
                section("1", 1, 0, 10, false), section("2", 1, 1, 10, false), section("3", 1, 2, 10, false)), 2);
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("3 holders inside at once, over 2 permits"), verdict.toString());
        assertEquals(3, verdict.mostInsideAtOnce());
    }

    @Test
    void oneTooManyIsSignalledWhenAHolderInsideWasToldItLostItsPermit() {
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(List.of(
                section("1", 1, 0, 10, true), section("1", 2, 5, 10, false)), 1);
        assertEquals(List.of(), verdict.silent());
        assertEquals(2, verdict.signalled().size(), "the slot's overlap and the count: " + verdict);
    }

    @Test
    void twoHoldersOfOneSlotOverlapEvenUnderTheCount() {
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(List.of(
                section("1", 1, 0, 10, false), section("1", 2, 5, 15, false)), 3);
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("slot k#1: overlap"), verdict.toString());
    }

    @Test
    void aSlotsTokensMustIncrease() {
        PermitHistoryChecker.Verdict verdict = PermitHistoryChecker.check(List.of(
                section("2", 5, 0, 10, false), section("2", 4, 10, 20, false)), 3);
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).contains("token not increasing"), verdict.toString());
    }
}
