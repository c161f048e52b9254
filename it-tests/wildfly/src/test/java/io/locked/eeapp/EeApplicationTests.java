package io.locked.eeapp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryChecker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the test application (io.locked.eeapp, the same WAR on every Jakarta EE server) must show on
 * two running servers of one kind, on one database: exclusion across them in both modes, a container
 * transaction left intact, MicroProfile Config overriding the annotation, the readiness check, and
 * one leader of a role at a time, the role moving at once when its leader stops (last: it stops a
 * server). Each server's test class starts its servers once and says how to reach them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
public abstract class EeApplicationTests {
    /** The role of {@code locked.leadership.roles} in the application's configuration, and its lease. */
    public static final String LEADER_ROLE = "eeapp-coordinator";
    public static final Duration LEADER_LEASE = Duration.ofSeconds(20);
    private static final int CLIENTS_PER_SERVER = 4;
    private static final int CALLS_PER_CLIENT = 25;
    private final HttpClient http = RunningServer.http(Duration.ofSeconds(5));

    /** A running server with the application deployed. */
    public interface Server {
        String name();

        /** @return the application's root */
        URI http();

        /** @return the server's MicroProfile Health readiness endpoint */
        URI readiness();

        /** @return what the server wrote to its output so far, also once it stopped */
        String log();

        /** Stops the server as an operator does (SIGTERM), and waits until it has ended. */
        void close() throws InterruptedException;
    }

    /** @return the two running servers */
    protected abstract List<? extends Server> servers();

    /** @return the kind of server, for the figures printed */
    protected abstract String label();

    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void clientsOfBothServersNeverOverlapAndTheCounterEndsExact(String mode) throws Exception {
        String counter = mode + "-" + UUID.randomUUID();
        // the counter's row first, alone: the race under test is the read-then-write, not the insert
        assertEquals(200, post(servers().get(0).http().resolve("counter/" + counter + "/" + mode)).statusCode());
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS_PER_SERVER * servers().size());
        List<Future<Integer>> calls = new ArrayList<>();
        for (Server server : servers()) {
            for (int client = 0; client < CLIENTS_PER_SERVER; client++) {
                calls.add(clients.submit(() -> {
                    for (int call = 0; call < CALLS_PER_CLIENT; call++) {
                        HttpResponse<String> response = post(server.http().resolve("counter/" + counter + "/" + mode));
                        assertEquals(200, response.statusCode(), () -> "server " + server.name() + ": " + response.body());
                    }
                    return CALLS_PER_CLIENT;
                }));
            }
        }
        int cycles = 1;
        for (Future<Integer> call : calls) {
            cycles += call.get(5, TimeUnit.MINUTES);
        }
        clients.shutdown();

        List<CriticalSection> sections = new ArrayList<>();
        for (Server server : servers()) {
            for (String line : get(server.http().resolve("history")).body().split("\n")) {
                if (line.startsWith(counter + " ")) {
                    sections.add(CriticalSection.parse(line.substring(counter.length() + 1)));
                }
            }
        }
        List<String> overlaps = HistoryChecker.violations(sections);
        long finalCount = Long.parseLong(get(servers().get(1).http().resolve("counter/" + counter)).body().trim());
        System.out.printf("[" + label() + "] %s: %d cycles through %d servers, %d sections recorded, %d overlaps, counter %d%n",
                mode, cycles, servers().size(), sections.size(), overlaps.size(), finalCount);

        assertEquals(cycles, sections.size(), "every call recorded one section");
        assertTrue(overlaps.isEmpty(), "overlapping sections: " + overlaps);
        assertEquals(cycles, finalCount, "the non-atomic counter lost increments");
    }

    @Test
    void aLockedCallInsideAContainerTransactionLeavesItIntactAndCommitsItsOwnWriteFirst() throws Exception {
        String counter = "orders-" + UUID.randomUUID();
        URI orders = servers().get(0).http();
        // status 0 is jakarta.transaction.Status.STATUS_ACTIVE: active, not marked rollback-only
        assertEquals("same=true status=0 counted=1 committed=1 kept=true",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter)).body());
        assertEquals("same=true status=0 counted=2 committed=2 kept=false",
                post(orders.resolve("orders/" + UUID.randomUUID() + "?counter=" + counter + "&rollBack=true")).body(),
                "the caller's rollback takes its own write only; the holder's was committed before");
        assertEquals("3", post(servers().get(1).http().resolve("counter/" + counter + "/optimistic")).body(),
                "the next holder, on the other server, sees both holders' committed writes");
    }

    @Test
    void microProfileConfigOfTheApplicationOverridesTheAnnotation() throws Exception {
        assertEquals("runs=0 wait=PT0S outcome=SKIP", post(servers().get(1).http().resolve("reports/daily-while-held")).body(),
                "wait and on-timeout from microprofile-config.properties, seen in the LockNotAcquired event");
    }

    /**
     * {@code @Locked(permits = 2)}: an export on each server holds a permit, each its own slot, and a
     * third export on either server is refused (409, the application's answer to LockNotAcquiredException)
     * while they run; once one is let go, an export gets in again.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void twoExportsAcrossTheServersHoldThePermitsAndAThirdIsRefused(String mode) throws Exception {
        Server first = servers().get(0);
        Server second = servers().get(1);
        String export = "export/" + mode;
        try (HeldBatch exports = new HeldBatch(http, servers(), "exports-" + UUID.randomUUID())) {
            exports.enter(first, export, "one", 1);
            List<String> inside = exports.enter(second, export, "two", 2);
            HttpResponse<String> third = exports.refused(first, export, "three", 2);
            HttpResponse<String> fourth = exports.refused(second, export, "four", 2);
            System.out.printf("[" + label() + "] permits, %s: inside %s; third and fourth refused: %d %s / %d %s%n",
                    mode, inside, third.statusCode(), third.body(), fourth.statusCode(), fourth.body());

            assertEquals(2, inside.stream().map(line -> line.split(" ")[2]).distinct().count(),
                    "each export holds a slot of its own: " + inside);
            assertEquals(409, third.statusCode(), third.body());
            assertEquals(409, fourth.statusCode(), fourth.body());
            HttpResponse<String> one = exports.letGo("one");
            assertEquals(200, one.statusCode(), one.body());
            exports.enter(second, export, "five", 2);
            assertEquals(200, exports.letGo("two").statusCode());
            assertEquals(200, exports.letGo("five").statusCode());
        }
    }

    /**
     * {@code @Locked(type = READ / WRITE)}: a reader on each server inside at once, a replacement on
     * either server refused while they read, and let in once both are done.
     */
    @ParameterizedTest
    @ValueSource(strings = {"pessimistic", "optimistic"})
    void readersOfBothServersShareTheCatalogAndTheWriterWaitsForThem(String mode) throws Exception {
        Server first = servers().get(0);
        Server second = servers().get(1);
        String batch = "catalog-" + UUID.randomUUID();
        String browse = "browse/" + mode;
        URI replace = URI.create("catalog/" + batch + "/replace/" + mode);
        try (HeldBatch readers = new HeldBatch(http, servers(), batch)) {
            readers.enter(first, browse, "one", 1);
            List<String> inside = readers.enter(second, browse, "two", 2);
            HttpResponse<String> writeHere = post(first.http().resolve(replace));
            HttpResponse<String> writeThere = post(second.http().resolve(replace));
            System.out.printf("[" + label() + "] read/write, %s: reading %s; writes while they read: %d %s / %d %s%n",
                    mode, inside, writeHere.statusCode(), writeHere.body(), writeThere.statusCode(), writeThere.body());

            assertEquals(409, writeHere.statusCode(), writeHere.body());
            assertEquals(409, writeThere.statusCode(), writeThere.body());
            assertEquals(2, readers.inside().size(), "the refused writes left the readers inside");
            assertEquals(200, readers.letGo("one").statusCode());
            assertEquals(409, post(second.http().resolve(replace)).statusCode(), "a write while one still reads");
            assertEquals(200, readers.letGo("two").statusCode());
        }
        // the first server's emptied OPTIMISTIC slot is released by its keep's timer a moment after its reader
        // left, and a writer of another JVM waits that moment more (docs/read-write-and-permits.md); this
        // endpoint's write does not wait, so it asks again until let in (a busy machine delayed that timer
        // past the next request on Payara 6: 2 runs in 4 under load)
        HttpResponse<String> written = post(second.http().resolve(replace));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (written.statusCode() == 409 && System.nanoTime() - deadline < 0) {
            Thread.sleep(50); // polling the write, whose refusal is immediate
            written = post(second.http().resolve(replace));
        }
        assertEquals(200, written.statusCode(), written.body());
        assertEquals("replaced " + batch, written.body());
    }

    @Test
    void theReadinessCheckLockedIsUpOnTheServersHealthEndpoint() throws Exception {
        for (Server server : servers()) {
            // Locked's own check; the server's overall status also counts its deployments
            String body = get(server.readiness()).body().replaceAll("\\s", ""); // Quarkus indents its JSON
            assertTrue(body.matches("(?s).*\\{\"name\":\"locked\",\"status\":\"UP\",\"data\":\\{[^}]*\"store\":\"answering\".*"), body);
        }
    }

    /**
     * The servers campaign for {@link #LEADER_ROLE} from their start (the application's LeaderDuties
     * records each grant, loss and act in the server's log). One of them leads; it is stopped, and the
     * other one leads next, in a higher term, at once rather than when the stopped one's lease would
     * have run out. Over the whole history no two terms overlap: no act of a term comes after an act
     * of a later term, and every act lies within its own server's term.
     */
    @Test
    @Order(Integer.MAX_VALUE) // it stops a server: the class's last test
    void oneServerLeadsAtATimeAndTheRoleMovesWhenItsLeaderStops() throws Exception {
        Map<String, LeadershipHistory.Entry> leading = LeadershipHistory.of(LEADER_ROLE, servers()).openTerms();
        assertEquals(1, leading.size(), "exactly one server should lead, but these do: " + leading
                + "; history " + LeadershipHistory.of(LEADER_ROLE, servers()));
        LeadershipHistory.Entry term = leading.values().iterator().next();
        Server leader = servers().stream().filter(s -> s.name().equals(term.instance())).findFirst().orElseThrow();
        Server other = servers().stream().filter(s -> s != leader).findFirst().orElseThrow();

        long stopping = System.nanoTime();
        leader.close();
        long exited = System.nanoTime();
        LeadershipHistory.Entry next = await(() -> LeadershipHistory.of(LEADER_ROLE, servers()).grantAfter(other.name(), term.term()),
                "a grant of the role to " + other.name() + " after " + leader.name() + " stopped");
        await(() -> LeadershipHistory.of(LEADER_ROLE, servers()).find("act", other.name(), next.term()),
                "an act of the new leader " + other.name());

        LeadershipHistory history = LeadershipHistory.of(LEADER_ROLE, servers());
        Optional<LeadershipHistory.Entry> letGo = history.find("lost", leader.name(), term.term());
        System.out.printf("[" + label() + "] leadership: %s led term %d (%d acts), stopped; it let the role go %s ms"
                        + " after the stop and exited after %d ms; %s led term %d %d ms after the stop (lease %d s); %s%n",
                leader.name(), term.term(), history.count("act", term.term()),
                letGo.map(l -> Long.toString((l.nanos() - stopping) / 1_000_000)).orElse("(never)"),
                (exited - stopping) / 1_000_000, other.name(), next.term(), (next.nanos() - stopping) / 1_000_000,
                LEADER_LEASE.toSeconds(), history);

        assertTrue(history.violations().isEmpty(), "two leaders at once: " + history.violations());
        assertTrue(history.count("act", term.term()) > 0, "the stopped leader acted in its term");
        assertEquals("closed", letGo.map(LeadershipHistory.Entry::reason).orElse(null),
                "the stopped leader gives the role up as it stops: " + history);
        long handOver = next.nanos() - stopping;
        assertTrue(handOver < LEADER_LEASE.toNanos() / 2, "the role moved " + handOver / 1_000_000
                + " ms after its leader was stopped: not at once, but as if the stopped leader's lease had run out");
    }

    private static <T> T await(Supplier<Optional<T>> found, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            Optional<T> result = found.get();
            if (result.isPresent()) {
                return result.get();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within 60 s, no " + what);
            }
            Thread.sleep(50); // polling the servers' logs
        }
    }

    protected HttpResponse<String> post(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    protected HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

}
