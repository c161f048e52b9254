package io.locked.contract;

import java.util.ArrayList;
import java.util.List;

/** Collects critical sections from many threads. */
public final class HistoryRecorder {
    private final List<CriticalSection> sections = new ArrayList<>();

    /**
     * @param section one finished critical section
     */
    public synchronized void record(CriticalSection section) {
        sections.add(section);
    }

    /** @return a copy of what was recorded */
    public synchronized List<CriticalSection> sections() {
        return new ArrayList<>(sections);
    }
}
