package io.locked.it.fault;

import io.locked.api.LockMode;
import io.locked.it.process.CounterFence;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.provider.Arguments;

/** The lock modes and counter fences a fault scenario with a late write runs with. */
final class FaultCases {
    private FaultCases() {
    }

    /**
     * Each mode without a fence (the negative control) and with the token fence; with the
     * library's fenced write too once {@code io.locked.jpa.LockFence} is on the classpath.
     */
    static List<Arguments> modesAndFences() {
        List<CounterFence> fences = new ArrayList<>(List.of(CounterFence.NONE, CounterFence.TOKEN));
        if (CounterFence.libraryAvailable()) {
            fences.add(CounterFence.LIBRARY);
        }
        List<Arguments> cases = new ArrayList<>();
        for (CounterFence fence : fences) {
            for (LockMode mode : LockMode.values()) {
                cases.add(Arguments.of(mode, fence));
            }
        }
        return cases;
    }
}
