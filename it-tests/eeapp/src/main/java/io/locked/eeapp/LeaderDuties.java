package io.locked.eeapp;

import io.locked.api.Leadership;
import io.locked.api.event.LeadershipGranted;
import io.locked.api.event.LeadershipLost;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The application's leader, as the usage guide has it: it observes the roles of
 * {@code locked.leadership.roles} being granted and lost, and while this instance holds a role, it acts
 * as its leader every 100 ms on a thread of its own, each act only after {@link Leadership#term()}
 * still answers the granted term.
 *
 * <p>Each grant, loss and act is a line of the instance's output, which the tests read, the stopped
 * instance's too (printed, not logged: Payara Micro's logging has stopped when the application gives
 * its roles up at a SIGTERM): {@code LEADERSHIP <granted|lost|act> role=<role> term=<token> instance=<name>
 * nanos=<System.nanoTime()>}, a loss's with {@code reason=...} after it. {@code System.nanoTime()}
 * is the machine's monotonic clock, one for every JVM of a Linux machine, which libfaketime leaves
 * alone as the tests set it. An act's time is taken before its check, so the check, which finds the
 * term still held, vouches for that moment.
 */
@ApplicationScoped
public class LeaderDuties {
    private static final long ACT_EVERY_MILLIS = 100;
    // a thread of its own rather than a managed executor: the same bean runs on Quarkus and on the servers
    private final ScheduledExecutorService leader = Executors.newSingleThreadScheduledExecutor(work -> {
        Thread thread = new Thread(work, "eeapp-leader");
        thread.setDaemon(true);
        return thread;
    });
    private ScheduledFuture<?> acting;

    synchronized void granted(@Observes LeadershipGranted granted) {
        record("granted", granted.role(), granted.term(), System.nanoTime(), "");
        stopActing();
        acting = leader.scheduleWithFixedDelay(() -> act(granted), 0, ACT_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }

    synchronized void lost(@Observes LeadershipLost lost) {
        stopActing();
        record("lost", lost.role(), lost.term(), System.nanoTime(), " reason=" + lost.reason());
    }

    private static void act(LeadershipGranted term) {
        long at = System.nanoTime();
        if (term.leadership().term().orElse(-1) == term.term()) {
            record("act", term.role(), term.term(), at, "");
        }
    }

    private void stopActing() {
        if (acting != null) {
            acting.cancel(false);
            acting = null;
        }
    }

    @PreDestroy
    void stop() {
        leader.shutdownNow();
    }

    private static void record(String what, String role, long term, long nanos, String more) {
        System.out.println("LEADERSHIP " + what + " role=" + role + " term=" + term + " instance=" + Counter.INSTANCE
                + " nanos=" + nanos + more);
    }
}
