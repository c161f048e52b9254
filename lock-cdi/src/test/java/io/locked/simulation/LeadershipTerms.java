package io.locked.simulation;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockManager;
import io.locked.internal.base.TimeSource;
import io.locked.internal.leadership.Candidacy;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongPredicate;
import java.util.function.Predicate;

/**
 * One role that every JVM of a run with waits campaigns for ({@link LockManager#campaign}), judged as its terms
 * begin and end. When a candidate is told it leads, every other leader was told it lost ({@code docs/leadership.md}:
 * the old leader hears of its loss before a new term can begin), unless its JVM was paused meanwhile, and even
 * then it no longer answers {@link Leadership#isLeader()}; the terms' tokens rise; and at the end every term
 * granted was also told lost. The one excuse is the stated window of a database clock that stepped forward,
 * cutting the older term's lease short of its own count ({@code docs/guarantees.md#database-clock-steps}).
 */
final class LeadershipTerms {
    static final String ROLE = "leader";
    private final Trace trace;
    private final List<String> violations;
    /** Whether a forward step cut the role row's lease short after the term's token was drawn. */
    private final LongPredicate cutShort;
    /** Whether the JVM was paused within the last lease: its check could not tell its listener in time. */
    private final Predicate<String> pausedLately;
    private final Candidacy.SeededBug bug;
    private final Map<String, Candidate> candidates = new LinkedHashMap<>();
    private long lastToken = -1;
    private int granted;
    private int lost;

    /**
     * @param cutShort     whether a forward step cut the role row's lease short after a term's token was drawn
     * @param pausedLately whether the JVM was paused within the last lease
     * @param bug          the bug a negative control seeds in the candidacy, or null
     */
    LeadershipTerms(Trace trace, List<String> violations, LongPredicate cutShort, Predicate<String> pausedLately,
                    Candidacy.SeededBug bug) {
        this.trace = trace;
        this.violations = violations;
        this.cutShort = cutShort;
        this.pausedLately = pausedLately;
        this.bug = bug;
    }

    private final class Candidate implements LeadershipListener {
        final String jvm;
        Leadership leadership;
        /** The term it was told it leads, until it is told it lost it; else -1. */
        long leading = -1;

        Candidate(String jvm) {
            this.jvm = jvm;
        }

        @Override
        public void granted(Leadership role, long term) {
            trace.add(jvm + " leads, term " + term);
            for (Candidate other : candidates.values()) {
                if (other != this && other.leading >= 0 && !cutShort.test(Math.min(term, other.leading))) {
                    if (other.leadership.isLeader()) {
                        violations.add(jvm + " was granted term " + term + " while " + other.jvm + " still led, term "
                                + other.leading);
                    } else if (!pausedLately.test(other.jvm)) {
                        violations.add(jvm + " was granted term " + term + " before " + other.jvm + " was told it lost term "
                                + other.leading);
                    }
                }
            }
            if (term <= lastToken && !cutShort.test(term)) {
                violations.add(jvm + "'s term " + term + " is not above the last term's " + lastToken);
            }
            lastToken = Math.max(lastToken, term);
            leading = term;
            granted++;
        }

        @Override
        public void lost(Leadership role, long term, String reason) {
            trace.add(jvm + " lost term " + term + ": " + reason);
            if (term != leading) {
                violations.add(jvm + " was told it lost term " + term + ", but it was told it leads term " + leading);
            }
            leading = -1;
            lost++;
        }
    }

    /** The JVM's manager campaigns for the role, on a thread of its own that runs in the simulation's world. */
    void campaign(String jvm, LockManager locks, TimeSource time, Duration lease) {
        Candidate candidate = new Candidate(jvm);
        candidates.put(jvm, candidate);
        if (bug == null) {
            candidate.leadership = locks.campaign(ROLE, lease, candidate);
        } else {
            // the manager's own candidacies are not seeded: this one campaigns beside them, as they do
            Set<Candidacy> open = ConcurrentHashMap.newKeySet();
            candidate.leadership = new Candidacy(locks, time, ROLE, lease, candidate, open, bug).start();
        }
    }

    /** @return the JVM's candidacy, to close on a thread of the world (its close waits for the campaign's end) */
    Leadership of(String jvm) {
        return candidates.get(jvm).leadership;
    }

    /** Every candidacy was closed: each term granted must have been told lost. */
    void judgeTheEnd() {
        if (granted != lost) {
            violations.add(granted + " terms granted, but " + lost + " told lost after every candidacy closed");
        }
    }

    int termsGranted() {
        return granted;
    }
}
