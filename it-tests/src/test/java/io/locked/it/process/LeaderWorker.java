package io.locked.it.process;

import io.locked.api.Leadership;
import io.locked.api.LeadershipListener;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A JVM that campaigns for a role and, every 20 ms, acts as leader if it believes it is one, printing
 * each act as {@code ACT <term> <epoch micros before the check>}. An obeying worker believes
 * {@link Leadership#term()}; an ignoring one (the negative control) believes its last grant for good,
 * as a leader that ignores "lost" would. It also prints {@code GRANTED <term> <epoch micros>},
 * {@code LOST <term> <reason>}, and {@code STOPPED <term> <epoch micros before the check>} at the first
 * check that no longer believes in a term it acted in. On {@code resign} from its standard input it
 * closes its candidacy: it gives the role up and stops competing.
 *
 * <p>The time of an act is read before the check, so that a pause between the check and the print
 * cannot make an act look later than it was: a new term's first act is read after its grant, which
 * came after the old term's lease had run out, and the old term's checks answered true only before that.
 */
final class LeaderWorker {
    private LeaderWorker() {
    }

    static void lead(TestDatabase database, String role, Duration lease, boolean obeys) throws Exception {
        AtomicLong believed = new AtomicLong(-1);
        try (Store store = database.open(4, Map.of());
             LockManager locks = LockManagerBuilder.on(store.repository()).build()) {
            WorkerEvents.print("READY " + System.nanoTime());
            Leadership leadership = locks.campaign(role, lease, new LeadershipListener() {
                @Override
                public void granted(Leadership leadership, long term) {
                    believed.set(term);
                    WorkerEvents.print("GRANTED " + term + " " + micros(Instant.now()));
                }

                @Override
                public void lost(Leadership leadership, long term, String reason) {
                    WorkerEvents.print("LOST " + term + " " + reason);
                }
            });
            resignOnCommand(leadership);
            OptionalLong acted = OptionalLong.empty();
            while (true) {
                long before = micros(Instant.now());
                OptionalLong term = obeys ? leadership.term()
                        : believed.get() < 0 ? OptionalLong.empty() : OptionalLong.of(believed.get());
                if (acted.isPresent() && !acted.equals(term)) {
                    WorkerEvents.print("STOPPED " + acted.getAsLong() + " " + before);
                }
                if (term.isPresent()) {
                    WorkerEvents.print("ACT " + term.getAsLong() + " " + before);
                }
                acted = term;
                LockSupport.parkNanos(20_000_000L); // the leader's work comes every 20 ms
            }
        }
    }

    private static void resignOnCommand(Leadership leadership) {
        Thread reader = new Thread(() -> {
            try (BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = commands.readLine()) != null) {
                    if (line.trim().equals("resign")) {
                        leadership.close();
                    } else {
                        System.err.println("unknown command: " + line);
                    }
                }
            } catch (IOException inputGone) {
                // the test ended; it kills this JVM
            }
        }, "leader-control");
        reader.setDaemon(true);
        reader.start();
    }

    private static long micros(Instant time) {
        return time.getEpochSecond() * 1_000_000L + time.getNano() / 1000;
    }
}
