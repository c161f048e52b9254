package io.locked.contract;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What may explain a loss a holder of a randomized run was told of: a forced release of that very hold,
 * a lease short enough for a slow moment of the machine to outrun it, or a forced release that ended the
 * holder's session in one of the shapes the stores document. Anything else is a loss the lock made up.
 */
final class LossExplanations {
    private static final Pattern MANAGER = Pattern.compile("^m\\d+");
    /** How long after a statement reached the server its reply may come back. */
    private static final long REPLY_SLACK_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final List<ForcedRelease> forced;
    private final Function<String, List<CriticalSection>> exclusiveHistory;
    private final Map<String, Long> releasedNanos;
    private final Map<String, Long> toldNanos;
    private final Set<String> shortLeases;
    private final boolean endsSessionsAfterASeparateCheck;
    private final boolean endsSessionsAnInstantAfterTheCheck;
    /** The forced releases that explained a loss of a shape that ends a session ({@link #claim}): one each. */
    private final Map<ForcedRelease, SessionEnd> explainedLosses = new HashMap<>();

    /** The shapes in which a forced release's end of a session explains a loss of another hold than the one it read. */
    private enum SessionEnd {
        /** {@link #endedNextWorkOfAReleasedSession} */
        NEXT_WORK,
        /** {@link #toldAfterItsCommitMetTheEnd} */
        COMMIT_MET
    }

    /**
     * @param forced                          the operator's forced releases
     * @param exclusiveHistory                the sections of an exclusive key of the run
     * @param releasedNanos                   when the holder's own release of a hold ({@code key#token}) returned
     * @param toldNanos                       when the close that told a hold ({@code key#token}) of its loss returned
     * @param shortLeases                     {@code key#token} of the holds whose own lease was short
     * @param endsSessionsAfterASeparateCheck see {@link RandomizedHistory#endsSessionsAfterASeparateCheck()}
     * @param endsSessionsAnInstantAfterTheCheck            see {@link RandomizedHistory#endsSessionsAnInstantAfterTheCheck()}
     */
    LossExplanations(List<ForcedRelease> forced, Function<String, List<CriticalSection>> exclusiveHistory,
                     Map<String, Long> releasedNanos, Map<String, Long> toldNanos, Set<String> shortLeases,
                     boolean endsSessionsAfterASeparateCheck, boolean endsSessionsAnInstantAfterTheCheck) {
        this.forced = forced;
        this.exclusiveHistory = exclusiveHistory;
        this.releasedNanos = releasedNanos;
        this.toldNanos = toldNanos;
        this.shortLeases = shortLeases;
        this.endsSessionsAfterASeparateCheck = endsSessionsAfterASeparateCheck;
        this.endsSessionsAnInstantAfterTheCheck = endsSessionsAnInstantAfterTheCheck;
    }

    /**
     * @param judged      every section of every key of the run
     * @param lossReasons what each holder ({@code key#token}) was told when it lost its lock
     * @param holds       the run's minimum holds
     * @return every loss a holder was told of that nothing explains, and every hold a forced release reports it
     *         ended whose holder was never told (unless that holder had released before: its minimum hold, left
     *         in the row, has no holder to tell)
     */
    List<String> unexplained(Map<String, List<CriticalSection>> judged, Map<String, String> lossReasons,
                             List<MinimumHold> holds) {
        List<String> problems = new ArrayList<>();
        Set<String> toldHolds = new HashSet<>();
        judged.forEach((key, history) -> {
            for (CriticalSection section : history) {
                String hold = key + "#" + section.token();
                if (section.lossSignalled()) {
                    toldHolds.add(hold);
                    if (!explain(key, section)) {
                        problems.add("told of a loss that no forced release and no short lease explains: " + section
                                + " on '" + key + "': " + lossReasons.getOrDefault(hold, "invalid when it left"));
                    }
                }
            }
        });
        for (ForcedRelease release : forced) {
            if (release.endedToken() && !toldHolds.contains(release.key() + "#" + release.ended().token().getAsLong())
                    && holds.stream().noneMatch(hold -> release.ended(hold.key(), hold.token())
                            && closingBy(hold, release.endNanos()))
                    && !releasedItselfDuring(release)) {
                problems.add("forceRelease('" + release.key() + "') reported ending " + release.ended()
                        + ", but no holder of that token was told it lost the lock");
            }
        }
        return problems;
    }

    /**
     * Whether the holder of a minimum hold had begun its release by then: the release commits somewhere between the
     * section's exit and the close's return, and a holder not told of a loss committed before the forced release
     * read the row, so the forced release ended the hold left behind, not the holder's (a loaded H2 run returned
     * from the close a millisecond after the forced release had ended).
     */
    private boolean closingBy(MinimumHold hold, long nanos) {
        return exclusiveHistory.apply(hold.key()).stream()
                .anyMatch(section -> section.token() == hold.token() && section.exitNanos() - nanos <= 0);
    }

    /**
     * The shape of {@link RandomizedHistory#endsSessionsAnInstantAfterTheCheck()}: the pessimistic section whose hold the
     * forced release reports ended was never told of a loss, and released itself while the forced release ran. A
     * store that ends sessions after a separate check ({@link RandomizedHistory#endsSessionsAfterASeparateCheck()},
     * MySQL 8's {@code KILL}) leaves the same instant, wider (a MySQL 8 run showed it). The release's commit lies
     * somewhere between the section's exit, taken before the close, and the close's return: that span must meet
     * the forced release's (a MySQL 8 run showed an exit taken just before the forced release began, its commit
     * landing after the forced release's read).
     */
    private boolean releasedItselfDuring(ForcedRelease release) {
        long token = release.ended().token().getAsLong();
        Long released = releasedNanos.get(release.key() + "#" + token);
        return (endsSessionsAnInstantAfterTheCheck || endsSessionsAfterASeparateCheck)
                && exclusiveHistory.apply(release.key()).stream().anyMatch(section ->
                section.token() == token && pessimistic(section) && !section.lossSignalled()
                        && section.exitNanos() <= release.endNanos()
                        && (released == null ? section.exitNanos() : released) >= release.startNanos());
    }

    /** @return whether the loss of this section of this key, which its holder was told of, is explained */
    private boolean explain(String key, CriticalSection lost) {
        String hold = key + "#" + lost.token();
        return forced.stream().anyMatch(release -> release.ended(key, lost.token()))
                || shortLeases.contains(hold)
                || endedUnnamedSessionDuring(key, lost)
                || endedNextWorkOfAReleasedSession(lost)
                || toldAfterItsCommitMetTheEnd(key, lost);
    }

    /**
     * @return how many losses {@link #endedNextWorkOfAReleasedSession} explained: a count that grows with the runs
     *         would say the shape is common, not the narrow window the stores document
     */
    synchronized int nextWorkEnded() {
        return Collections.frequency(explainedLosses.values(), SessionEnd.NEXT_WORK);
    }

    /** @return how many losses {@link #toldAfterItsCommitMetTheEnd} explained, for the same reason */
    synchronized int commitsMetByTheEnd() {
        return Collections.frequency(explainedLosses.values(), SessionEnd.COMMIT_MET);
    }

    /**
     * Takes the first forced release that fits a shape in which the end of a session explains a pessimistic loss, on
     * a store that ends sessions after a check; one {@code KILL} ends one session, so each forced release explains
     * one such loss at most.
     */
    private synchronized boolean claim(SessionEnd shape, CriticalSection lost, Predicate<ForcedRelease> fits) {
        if (!(endsSessionsAfterASeparateCheck || endsSessionsAnInstantAfterTheCheck) || !pessimistic(lost)) {
            return false;
        }
        Optional<ForcedRelease> explaining = forced.stream()
                .filter(release -> !explainedLosses.containsKey(release))
                .filter(fits)
                .findFirst();
        explaining.ifPresent(release -> explainedLosses.put(release, shape));
        return explaining.isPresent();
    }

    /** PostgreSQL ends the session that row-locks a key even before its holder published its token. */
    private boolean endedUnnamedSessionDuring(String key, CriticalSection section) {
        return forced.stream().anyMatch(release -> release.endedUnnamed() && release.key().equals(key)
                && release.startNanos() <= section.exitNanos() && release.endNanos() >= section.enterNanos());
    }

    /**
     * The shape of {@link RandomizedHistory#endsSessionsAfterASeparateCheck()}: a forced release answered for a
     * pessimistic holder of its key, of the lost holder's manager (its pool), that released itself during the
     * forced release ({@link #answersForAHoldThatReleasedItself}); the pooled session then took the lost
     * pessimistic section's work (of any key, the forced one included: a waiter of that pool for that key may get
     * that very session), which began after that release, and whose lock statement reached the server before the
     * forced release's end. Its entry may come a moment after that end, the lock statement's reply being on its
     * way. On a store that ends sessions by a signal ({@link RandomizedHistory#endsSessionsAnInstantAfterTheCheck()})
     * the signal meets the session's next work the same way.
     */
    private boolean endedNextWorkOfAReleasedSession(CriticalSection lost) {
        return claim(SessionEnd.NEXT_WORK, lost, release -> exclusiveHistory.apply(release.key()).stream()
                .anyMatch(released -> answersForAHoldThatReleasedItself(release, released) && pessimistic(released)
                        && !released.lossSignalled()
                        && manager(released).equals(manager(lost))
                        // its release committed after the check, and its close returned after that commit
                        && releasedNanos.getOrDefault(release.key() + "#" + released.token(),
                                released.exitNanos()) >= release.startNanos()
                        && released.exitNanos() <= release.endNanos()
                        && lost.enterNanos() >= released.exitNanos()
                        && lost.enterNanos() <= release.endNanos() + REPLY_SLACK_NANOS));
    }

    /**
     * A pessimistic holder whose release committed while a forced release of its key ended its session: the check
     * found the hold open, the end met the commit under way (MariaDB's {@code KILL} flags the session, which acts at
     * its next step), the forced release then found the released token committed and answered "free", and the end
     * cut off the commit's reply. The holder then looks for its token among the committed ones and, where a later
     * holder of the key had already committed a later one, is told of a loss: the safe side of a landed commit it
     * cannot tell from a rolled-back one. Its exit, taken before the commit, came before the forced release's end; its
     * close returned after the forced release began; a later holder of the key entered after its exit and by the
     * forced release's end plus a reply's slack. One loss per forced release (a MariaDB run, seed
     * -2166497939604334663).
     */
    private boolean toldAfterItsCommitMetTheEnd(String key, CriticalSection lost) {
        // its close told the loss: it returned then (a PostgreSQL run, seed -3703836269660517976: the exit came
        // 2 ms before the forced release began, the commit after it, and the close 70 ms after its end)
        long closed = toldNanos.getOrDefault(key + "#" + lost.token(), lost.exitNanos());
        return claim(SessionEnd.COMMIT_MET, lost, release -> release.key().equals(key)
                && release.ended() == null && release.outcome().equals("free")
                && lost.exitNanos() <= release.endNanos() && closed >= release.startNanos()
                && exclusiveHistory.apply(key).stream().anyMatch(later -> later.token() > lost.token()
                        && later.enterNanos() >= lost.exitNanos()
                        && later.enterNanos() <= release.endNanos() + REPLY_SLACK_NANOS));
    }

    /**
     * Whether the forced release's answer fits that hold's having released itself during it: "free", or "ended"
     * with that hold's token. A store that ends sessions by a signal cannot tell a release rolled back in that
     * instant from an ended hold. One that ends them after a separate check (MySQL 8) tells a committed release
     * only by finding the released token still the row's: where a next holder committed a later token before the
     * forced release read the row, it answers "ended" for the hold that released itself (as
     * {@link #releasedItselfDuring} accepts on that hold's side).
     */
    private boolean answersForAHoldThatReleasedItself(ForcedRelease release, CriticalSection released) {
        if (release.ended() == null) {
            return release.outcome().equals("free");
        }
        return release.endedToken() && release.ended().token().getAsLong() == released.token();
    }

    /**
     * A section's holder names its mode last ("m0t1#5P"), before the mark of a hold closed by another thread than
     * the one that took it ("m0t1#8P>handed", {@link RandomWorker#HANDED_OVER}).
     */
    static boolean pessimistic(CriticalSection section) {
        String holder = section.holder();
        int handedOver = holder.indexOf(RandomWorker.HANDED_OVER);
        return (handedOver < 0 ? holder : holder.substring(0, handedOver)).endsWith("P");
    }

    /** @return the manager of a worker's section: "m0" of "m0t1#5P" or of "m0/c2#7P" */
    static String manager(CriticalSection section) {
        Matcher manager = MANAGER.matcher(section.holder());
        return manager.find() ? manager.group() : section.holder();
    }
}
