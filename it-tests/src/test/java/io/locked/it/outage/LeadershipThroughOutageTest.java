package io.locked.it.outage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.locked.api.Leadership;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.contract.TermsTold;
import io.locked.it.server.DatabaseProxy;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Three candidates for one role, each with its own lock store on one MariaDB reached through a proxy,
 * stand for three JVMs. The proxy cuts them all off (connections reset, new ones refused) for longer
 * than the role's lease, then lets them through again. Afterwards exactly one leads, terms' tokens
 * rise, and every earlier leader was told it lost the role before any new term began: checked on one
 * history of what the listeners were told, in the order they were told it.
 */
class LeadershipThroughOutageTest {
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** A bound for a hung test, not a measure. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);
    private final TermsTold told = new TermsTold();

    @Test
    void afterAnOutageLongerThanTheLeaseExactlyOneLeads() throws Exception {
        MariaDbEndpoint database = MariaDbEndpoint.shared();
        String role = "it:leadership-outage:" + UUID.randomUUID();
        List<AutoCloseable> resources = new ArrayList<>();
        List<Leadership> candidates = new ArrayList<>();
        try (DatabaseProxy proxy = DatabaseProxy.start(database)) {
            MariaDbEndpoint cutOff = database.through(proxy.port());
            try {
                for (int candidate = 0; candidate < 3; candidate++) {
                    Store store = TestDatabase.MARIADB.openAt(cutOff.url(), cutOff.user(), cutOff.password(), 3,
                            settings -> settings.connectionWait(Duration.ofMillis(500)));
                    resources.add(store);
                    LockManager locks = LockManagerBuilder.on(store.repository()).build();
                    resources.add(locks);
                    candidates.add(locks.campaign(role, LEASE, told.listener(candidate)));
                }
                awaitThat(() -> told.grants() == 1, "a first leader");

                long cutAt = System.nanoTime();
                assertTrue(proxy.cut() > 0, "no connection to cut");
                awaitThat(() -> !told.last().granted(), "the leader told its term ended");
                // the outage lasts past the role's lease in the database, whoever renewed last
                awaitThat(() -> System.nanoTime() - cutAt > LEASE.plus(LEASE.dividedBy(2)).toNanos(),
                        "an outage longer than the lease");
                assertTrue(candidates.stream().noneMatch(Leadership::isLeader), "nobody leads while cut off");
                proxy.restore();

                awaitThat(() -> told.grants() == 2 && candidates.stream().filter(Leadership::isLeader).count() == 1,
                        "one leader after the outage");
                TermsTold.Told last = told.last();
                assertTrue(last.granted(), "the last word is a grant: " + told.history());
                assertEquals(last.term(), candidates.get(last.candidate()).term().getAsLong());
                assertEquals(1, candidates.stream().filter(Leadership::isLeader).count(), told.history().toString());
            } finally {
                candidates.forEach(Leadership::close);
                for (int i = resources.size() - 1; i >= 0; i--) {
                    resources.get(i).close();
                }
            }
        }
        told.check();
    }

    private static void awaitThat(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("not reached within " + PATIENCE + ": " + what);
            }
            Thread.sleep(20); // polling a condition, not waiting out a guess
        }
    }
}
