package io.locked.payara;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.eeapp.RunningServer;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * One Payara Micro instance, as its users start it: {@code java -jar payara-micro.jar --deploy app.war},
 * on a port of its own, with a root directory of its own and no clustering (two instances on one
 * machine would otherwise form a Hazelcast cluster). Which Payara, on which Java and on which database
 * is the lane's: the failsafe execution sets them (one per Payara version).
 */
final class PayaraMicroInstance extends RunningServer {
    static final Path MICRO = Path.of(System.getProperty("payara.micro", "target/payara-micro.jar"));
    /** the lane's name (payara6, payara7): its logs, its root directories and its figures */
    static final String LANE = System.getProperty("payara.lane", "payara");
    /** the application's database (MariaDB), reaching its {@code @DataSourceDefinition} through the environment */
    static final String DATABASE = System.getProperty("payara.database", "locked_payara");
    private static final int JAVA_RELEASE = Integer.getInteger("payara.java-release", 17);
    private final Path root;
    private int port;

    PayaraMicroInstance(String name) {
        super(name, MICRO.getParent().resolve(LANE + "-" + name + ".log"));
        this.root = MICRO.getParent().resolve(LANE + "-" + name);
    }

    /**
     * Starts the instance with the WAR and, if asked, waits until its readiness endpoint has Locked's check.
     *
     * @param awaitReady false for a deployment that is expected to fail
     */
    PayaraMicroInstance start(Path war, boolean awaitReady) throws Exception {
        // a root directory left by an earlier run makes Payara Micro deploy its application again, and
        // then redeploy it from --deploy, undeploying it for a moment while the tests run
        deleteTree(root);
        port = freePort();
        ProcessBuilder command = new ProcessBuilder(List.of(ServerJava.atLeast(JAVA_RELEASE).toString(),
                "-Dlocked-app.instance=" + name(), "-jar", MICRO.toString(),
                "--deploy", war.toString(), "--contextroot", "app", "--port", Integer.toString(port),
                "--nocluster", "--nohazelcast", "--rootdir", root.toString()));
        command.environment().put("LOCKED_APP_DATABASE", DATABASE);
        launch(command, awaitReady);
        return this;
    }

    @Override
    public URI http() {
        return URI.create("http://127.0.0.1:" + port + "/app/");
    }

    @Override
    public URI readiness() {
        return URI.create("http://127.0.0.1:" + port + "/health/ready");
    }

    /** Stops the instance, then fails if the application left a ThreadLocal of Locked's on the server's threads. */
    @Override
    public void close() throws InterruptedException {
        super.close();
        assertEquals(List.of(), ThreadLocalLeaks.ofLocked(log()), name() + " reported a ThreadLocal of Locked's left behind");
    }
}
