package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.contract.CriticalSection;
import java.util.List;
import org.junit.jupiter.api.Test;

class JvmTurnsTest {

    private static CriticalSection section(long enter, long exit) {
        return new CriticalSection("1/w0", enter, enter, exit);
    }

    @Test
    void theLongestGapMayLieBetweenTwoSections() {
        JvmTurns turns = JvmTurns.of("a", List.of(section(130, 140), section(100, 110), section(200, 210)), 100, 220);

        assertEquals(new JvmTurns("a", 3, 60), turns);
    }

    @Test
    void aWindowBeganOrEndedWithoutASectionCountsAsAGap() {
        assertEquals(new JvmTurns("a", 1, 50), JvmTurns.of("a", List.of(section(150, 160)), 100, 180));
        assertEquals(new JvmTurns("a", 1, 70), JvmTurns.of("a", List.of(section(100, 110)), 100, 180));
    }

    @Test
    void sectionsOutsideTheWindowAreNotCountedButEndAGap() {
        // the first section began before the window and ended inside it: the gap starts at its exit
        JvmTurns turns = JvmTurns.of("a", List.of(section(90, 120), section(150, 160), section(185, 190)), 100, 180);

        assertEquals(new JvmTurns("a", 1, 30), turns);
    }

    @Test
    void aJvmWithoutSectionsWasIdleForTheWholeWindow() {
        assertEquals(new JvmTurns("a", 0, 80), JvmTurns.of("a", List.of(), 100, 180));
    }

    @Test
    void sharesAreOfTheAcquisitionsOfAllJvms() {
        List<JvmTurns> all = List.of(new JvmTurns("a", 3, 0), new JvmTurns("b", 1, 0));

        assertEquals(0.75, all.get(0).share(all));
        assertEquals(0.25, all.get(1).share(all));
    }
}
