package io.locked.quarkus.app;

import io.locked.eeapp.EeApplicationTests;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;

/**
 * Two instances of the packaged application (quarkus-run.jar, as users run it), each a JVM of its own
 * on its own port, on one database: what every server's application must show, over HTTP. These two
 * campaign for the role of the leadership test (given on the command line, so that the instances of
 * the other tests run without it), with the lease the servers' configuration gives it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class QuarkusInstancesIT extends EeApplicationTests {
    private final List<QuarkusInstance> instances = new ArrayList<>();

    @Override
    protected List<QuarkusInstance> servers() {
        return instances;
    }

    @Override
    protected String label() {
        return "quarkus";
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        for (String name : List.of("a", "b")) {
            QuarkusInstance instance = new QuarkusInstance(name);
            instances.add(instance);
            instance.start("-Dlocked.leadership.roles=" + LEADER_ROLE, "-Dlocked.leadership.lease=" + LEADER_LEASE.toMillis() + "ms");
            System.out.printf("[quarkus] instance %s ready in %d ms (process start to readiness UP)%n", name, instance.bootMillis());
        }
    }

    @AfterAll
    void stopInstances() throws InterruptedException {
        for (QuarkusInstance instance : instances) {
            instance.close();
        }
    }
}
