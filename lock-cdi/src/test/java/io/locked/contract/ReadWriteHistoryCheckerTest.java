package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.ReadWriteHistoryChecker.Access;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The read/write checker on histories written by hand: each rule fails on the history that breaks it. */
class ReadWriteHistoryCheckerTest {

    private static Access read(String slot, long token, long enter, long exit) {
        return new Access(false, "k\u001Fr" + slot, new CriticalSection("r" + slot, token, enter, exit, false));
    }

    private static Access read(String slot, String holder, long token, long enter, long exit) {
        return new Access(false, "k\u001Fr" + slot, new CriticalSection(holder, token, enter, exit, false));
    }

    private static Access write(long token, long enter, long exit, boolean lost) {
        return new Access(true, "k\u001Fw", new CriticalSection("w", token, enter, exit, lost));
    }

    @Test
    void readersSideBySideThenAWriterAloneAreCorrect() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                read("1", 10, 0, 10), read("2", 10, 1, 10), write(12, 10, 20, false), read("1", 12, 20, 30)));
        assertEquals(List.of(), verdict.silent());
        assertEquals(List.of(), verdict.signalled());
        assertEquals(2, verdict.mostReadersAtOnce());
    }

    @Test
    void aWriterBesideAReaderIsASilentViolation() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                read("1", 10, 0, 10), write(12, 5, 20, false)));
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("a writer overlaps: reader k#r1"), verdict.toString());
    }

    @Test
    void twoWritersAtOnceAreASilentViolation() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                write(1, 0, 10, false), write(2, 5, 20, false)));
        assertEquals(1, verdict.silent().size(), verdict.toString());
    }

    @Test
    void aWriterBesideAHolderToldOfItsLossIsSignalled() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                write(1, 0, 10, true), write(2, 5, 20, false)));
        assertEquals(List.of(), verdict.silent());
        assertEquals(1, verdict.signalled().size(), verdict.toString());
    }

    @Test
    void aWritersTokenMustBeAboveAnEarlierReadersToken() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                read("1", 50, 0, 10), write(40, 10, 20, false)));
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("writer's token not above an earlier holder's"), verdict.toString());
    }

    @Test
    void readersOfOneSlotFromTwoProcessesMustNotOverlap() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                read("1", "jvm1/t1", 10, 0, 10), read("1", "jvm1/t2", 10, 8, 12), read("1", "jvm2/t1", 11, 11, 15)));
        assertEquals(1, verdict.silent().size(), verdict.toString());
        assertTrue(verdict.silent().get(0).startsWith("reader slot k#r1: overlap"), verdict.toString());
    }

    @Test
    void readersOfOneProcessShareItsSlot() {
        ReadWriteHistoryChecker.Verdict verdict = ReadWriteHistoryChecker.check(List.of(
                read("1", "jvm1/t1", 10, 0, 10), read("1", "jvm1/t2", 10, 5, 15), read("1", "jvm2/t1", 12, 16, 20)));
        assertEquals(List.of(), verdict.silent(), verdict.toString());
        assertEquals(2, verdict.mostReadersAtOnce());
    }
}
