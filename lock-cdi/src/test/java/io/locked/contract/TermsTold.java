package io.locked.contract;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One history of what candidates' listeners were told (a term granted, a term ended), in the order they were
 * told it, and the check of leadership's promise on it: terms rise, and no term begins while an earlier one
 * has not been told it ended.
 */
public final class TermsTold {
    private final List<Told> history = new ArrayList<>();

    /**
     * What one listener was told.
     *
     * @param candidate which candidate
     * @param granted   true for a term's beginning, false for its end
     * @param term      the term's token
     */
    public record Told(int candidate, boolean granted, long term) {
    }

    /** @return a listener that records what candidate number {@code candidate} is told */
    public LeadershipListener listener(int candidate) {
        return new LeadershipListener() {
            @Override
            public void granted(Leadership leadership, long term) {
                synchronized (history) {
                    history.add(new Told(candidate, true, term));
                }
            }

            @Override
            public void lost(Leadership leadership, long term, String reason) {
                synchronized (history) {
                    history.add(new Told(candidate, false, term));
                }
            }
        };
    }

    /** @return what was told so far, in order */
    public List<Told> history() {
        synchronized (history) {
            return List.copyOf(history);
        }
    }

    /** @return the last thing told; the history must not be empty */
    public Told last() {
        List<Told> told = history();
        return told.get(told.size() - 1);
    }

    /** @return how many terms were granted */
    public long grants() {
        return history().stream().filter(Told::granted).count();
    }

    /** Terms rise, and no term is granted while an earlier one has not been told it ended. */
    public void check() {
        List<Told> told = history();
        Set<Long> running = new HashSet<>();
        long lastTerm = 0;
        for (Told event : told) {
            if (event.granted()) {
                assertTrue(running.isEmpty(), "term " + event.term() + " began while " + running + " had not been told"
                        + " it ended: " + told);
                assertTrue(event.term() > lastTerm, "terms rise: " + told);
                lastTerm = event.term();
                running.add(event.term());
            } else {
                assertTrue(running.remove(event.term()), "told the end of a term not running: " + told);
            }
        }
    }
}
