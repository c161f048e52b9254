package io.locked.it.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.TestDatabase;
import java.nio.file.Path;
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
 * whose leader is killed with {@code kill -9}, and whose next leader is paused (SIGSTOP) until
 * another took over, then resumed. A checker over every act of leadership, ordered by time, asserts
 * that no act of an older term comes after an act of a newer one (no two leaders at once), and that
 * each term's token is higher than the last. The negative control: a leader that ignores "lost"
 * shows up as an overlap.
 */
class LeadershipAcrossJvmsTest {
    private static final long LEASE_MILLIS = 1500;
    private static final long PATIENCE_NANOS = 60_000_000_000L;
    private static final TestDatabase DATABASE = TestDatabase.MARIADB;
    private final String role = "it:leader:" + UUID.randomUUID();

    @TempDir
    Path dir;

    @Test
    void oneLeaderAtATimeThroughAKillAndAPauseLongerThanTheLease() throws Exception {
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

            long paused = System.nanoTime();
            second.process.suspend();
            Candidate third = awaitNewLeader(candidates);
            long afterPause = millisSince(paused);
            int actsBeforeResume = second.acts().size();
            long resumed = System.nanoTime();
            second.process.resume();
            await(() -> second.lines.stream().anyMatch(line -> line.startsWith("LOST ")), "the paused leader learns its loss");
            long toldLost = millisSince(resumed);
            awaitActs(third, 5);

            System.out.printf("[leadership] lease %d ms: takeover %d ms after kill -9, %d ms after SIGSTOP of the leader;"
                    + " the paused leader was told of its loss %d ms after SIGCONT and acted %d times after it%n",
                    LEASE_MILLIS, afterKill, afterPause, toldLost, second.acts().size() - actsBeforeResume);
            assertEquals(Optional.empty(), overlap(candidates), "two leaders at once");
            List<Long> grants = candidates.stream().flatMap(candidate -> candidate.grants().stream())
                    .sorted(Comparator.comparingLong(grant -> grant[1])).map(grant -> grant[0]).toList();
            assertEquals(3, grants.size(), "three terms: " + grants);
            assertTrue(grants.get(0) < grants.get(1) && grants.get(1) < grants.get(2), "terms' tokens rise: " + grants);
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

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** One candidate JVM and everything it printed. */
    private final class Candidate implements AutoCloseable {
        final String name;
        final List<String> lines = new CopyOnWriteArrayList<>();
        final WorkerProcess process;

        Candidate(String name, boolean obeys) throws Exception {
            this.name = name;
            this.process = WorkerProcess.start(dir.resolve(name + ".log"), DATABASE.workerEnvironment(), lines::add,
                    "lead", DATABASE.name(), role, String.valueOf(LEASE_MILLIS), String.valueOf(obeys));
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

        @Override
        public void close() {
            process.close();
        }

        @Override
        public String toString() {
            return name;
        }
    }
}
