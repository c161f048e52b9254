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
     * Each mode without a fence (the negative control) and with the library's fenced write. The
     * token fence at the resource ({@link CounterFence#TOKEN}) proves the same and runs on demand.
     */
    static List<Arguments> modesAndFences() {
        List<Arguments> cases = new ArrayList<>();
        for (CounterFence fence : List.of(CounterFence.NONE, CounterFence.LIBRARY)) {
            for (LockMode mode : LockMode.values()) {
                cases.add(Arguments.of(mode, fence));
            }
        }
        return cases;
    }
}
