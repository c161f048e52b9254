package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.it.server.DatabaseProxy;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader election across real JVMs ({@link LeaderWorker}) on MariaDB: three candidates for one role,
 * each reaching the database through a proxy of its own ({@link DatabaseProxy}). The first leader is
 * killed with {@code kill -9}; the next one is paused (SIGSTOP) until another took over, then resumed;
 * the next one's network is cut (its connections reset, new ones refused) until another took over and
 * it stopped acting, then restored, and it must come back as a candidate: when the leader resigns, it
 * takes over. A checker over every act of leadership, ordered by time, asserts that no act of an older
 * term comes after an act of a newer one (no two leaders at once), and each term's token is higher
 * than the last. The negative control: a leader that ignores "lost" shows up as an overlap.
 */
class LeadershipAcrossJvmsTest {
    private static final long LEASE_MILLIS = 1500;
    private static final long PATIENCE_NANOS = 60_000_000_000L;
    private final String role = "it:leader:" + UUID.randomUUID();

    @TempDir
    Path dir;

    @Test
    void oneLeaderAtATimeThroughAKillAPauseAndACutLongerThanTheLease() throws Exception {
        List<Candidate> candidates = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                candidates.add(new Candidate("jvm" + i, true));
            }
            Candidate first = awaitNewLeader(candidates);
            awaitActs(first, 5);

            long killed = System.nanoTime();
            first.process.kill();
            Candidate second = awaitNewLeader(candidates);
            long afterKill = millisSince(killed);
            awaitActs(second, 5);

            long pausedTerm = second.lastGrantedTerm();
            long paused = System.nanoTime();
            second.process.suspend();
            Candidate third = awaitNewLeader(candidates);
            long afterPause = millisSince(paused);
            long resumedAtMicros = epochMicros();
            long resumed = System.nanoTime();
            second.process.resume();
            await(() -> second.lines.stream().anyMatch(line -> line.startsWith("LOST ")), "the paused leader learns its loss");
            long toldLost = millisSince(resumed);
            awaitActs(third, 5);

            long cutTerm = third.lastGrantedTerm();
            long cutAtMicros = epochMicros();
            long cut = System.nanoTime();
            assertTrue(third.proxy.cut() > 0, "the leader had no connection to the database to cut");
            Candidate fourth = awaitNewLeader(candidates);
            long afterCut = millisSince(cut);
            // while it cannot reach the database it must not act, and it must be told so before it can again
            long stoppedAtMicros = awaitStopped(third, cutTerm);
            await(() -> third.lines.stream().anyMatch(line -> line.startsWith("LOST " + cutTerm + " ")),
                    "the cut-off leader is told of its loss");
            long cutToldLost = millisSince(cut);
            awaitActs(fourth, 5);
            long restored = System.nanoTime();
            third.proxy.restore();
            // its pool's own pace, not the lock's: connections are retried with a growing back-off
            await(() -> third.proxy.openConnections() > 0, "the cut-off leader reconnects");
            long reconnected = millisSince(restored);

            long resigned = System.nanoTime();
            fourth.process.send("resign");
            Candidate fifth = awaitNewLeader(candidates);
            long afterResign = millisSince(resigned);
            assertSame(third, fifth, "the only candidate left is the one whose network came back");
            awaitActs(fifth, 5);

            System.out.printf("[leadership] lease %d ms: takeover %d ms after kill -9, %d ms after SIGSTOP of the leader,"
                    + " %d ms after cutting the leader's network; the paused leader was told of its loss %d ms after SIGCONT"
                    + " and acted %d times after it; the cut-off leader stopped acting %d ms and was told of its loss %d ms"
                    + " after the cut; its network back, it reconnected in %d ms and took over %d ms after the leader"
                    + " resigned%n",
                    LEASE_MILLIS, afterKill, afterPause, afterCut, toldLost, second.actsIn(pausedTerm, resumedAtMicros),
                    (stoppedAtMicros - cutAtMicros) / 1000, cutToldLost, reconnected, afterResign);
            assertEquals(Optional.empty(), overlap(candidates), "two leaders at once");
            List<Long> grants = candidates.stream().flatMap(candidate -> candidate.grants().stream())
                    .sorted(Comparator.comparingLong(grant -> grant[1])).map(grant -> grant[0]).toList();
            assertEquals(5, grants.size(), "five terms: " + grants);
            for (int i = 1; i < grants.size(); i++) {
                assertTrue(grants.get(i - 1) < grants.get(i), "terms' tokens rise: " + grants);
            }
        } finally {
            candidates.forEach(Candidate::close);
        }
    }

    @Test
    void aLeaderThatIgnoresLostShowsUpAsAnOverlap() throws Exception {
        List<Candidate> candidates = new ArrayList<>();
        try {
            Candidate ignoring = new Candidate("ignoring", false);
            candidates.add(ignoring);
            awaitNewLeader(candidates);
            Candidate obeying = new Candidate("obeying", true);
            candidates.add(obeying);
            ignoring.process.suspend();
            awaitNewLeader(List.of(obeying));
            awaitActs(obeying, 3);
            int before = ignoring.acts().size();
            ignoring.process.resume();
            await(() -> ignoring.acts().size() >= before + 3, "the ignoring leader acts on after its pause");
            assertTrue(overlap(candidates).isPresent(), "the checker must see the ignoring leader's acts as an overlap");
        } finally {
            candidates.forEach(Candidate::close);
        }
    }

    /** The first act, in time, of a term older than one already seen acting: two leaders at once. */
    private static Optional<String> overlap(List<Candidate> candidates) {
        List<long[]> acts = new ArrayList<>();
        for (Candidate candidate : candidates) {
            acts.addAll(candidate.acts());
        }
        acts.sort(Comparator.<long[]>comparingLong(act -> act[1]).thenComparingLong(act -> act[0]));
        long newest = Long.MIN_VALUE;
        long newestAt = 0;
        for (long[] act : acts) {
            if (act[0] < newest) {
                return Optional.of("term " + act[0] + " acted at " + act[1] + " us, after term " + newest + " acted at "
                        + newestAt + " us");
            }
            if (act[0] > newest) {
                newest = act[0];
                newestAt = act[1];
            }
        }
        return Optional.empty();
    }

    private Candidate awaitNewLeader(List<Candidate> among) throws InterruptedException {
        int[] known = among.stream().mapToInt(candidate -> candidate.grants().size()).toArray();
        Candidate[] leader = new Candidate[1];
        await(() -> {
            for (int i = 0; i < among.size(); i++) {
                if (among.get(i).grants().size() > known[i]) {
                    leader[0] = among.get(i);
                    return true;
                }
            }
            return false;
        }, "a new leader among " + among);
        return leader[0];
    }

    /** @return when the leader, at its first check after the term ended, no longer believed in it (epoch micros) */
    private static long awaitStopped(Candidate leader, long term) throws InterruptedException {
        await(() -> !leader.parse("STOPPED ").isEmpty(), leader + " stops acting in term " + term);
        long[] stopped = leader.parse("STOPPED ").get(0);
        assertEquals(term, stopped[0], leader + " stopped acting in another term than the cut one");
        return stopped[1];
    }

    private static void awaitActs(Candidate leader, int more) throws InterruptedException {
        int from = leader.acts().size();
        await(() -> leader.acts().size() >= from + more, leader + " acts as leader");
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 60 s: " + what);
            }
            Thread.sleep(20); // polling the workers' output
        }
    }

    private static long epochMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** One candidate JVM, its own way to the database, and everything it printed. */
    private final class Candidate implements AutoCloseable {
        final String name;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final DatabaseProxy proxy;
        final WorkerProcess process;

        Candidate(String name, boolean obeys) throws Exception {
            this.name = name;
            MariaDbEndpoint database = MariaDbEndpoint.shared();
            this.proxy = DatabaseProxy.start(database);
            try {
                this.process = WorkerProcess.start(dir.resolve(name + ".log"),
                        database.through(proxy.port()).workerEnvironment(), lines::add,
                        "lead", TestDatabase.MARIADB.name(), role, String.valueOf(LEASE_MILLIS), String.valueOf(obeys));
            } catch (Exception | Error failed) {
                proxy.close();
                throw failed;
            }
        }

        /** @return {term, epoch micros} of each act */
        List<long[]> acts() {
            return parse("ACT ");
        }

        /** @return {term, epoch micros} of each grant */
        List<long[]> grants() {
            return parse("GRANTED ");
        }

        private List<long[]> parse(String prefix) {
            List<long[]> parsed = new ArrayList<>();
            for (String line : lines) {
                if (line.startsWith(prefix)) {
                    String[] parts = line.split(" ");
                    parsed.add(new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])});
                }
            }
            return parsed;
        }

        /** @return how many acts of that term were checked at or after that time (one checked before a pause prints after it) */
        long actsIn(long term, long fromMicros) {
            return acts().stream().filter(act -> act[0] == term && act[1] >= fromMicros).count();
        }

        long lastGrantedTerm() {
            List<long[]> grants = grants();
            return grants.get(grants.size() - 1)[0];
        }

        @Override
        public void close() {
            process.close();
            proxy.close();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
