package io.locked.payara;

import io.locked.eeapp.RunningServer;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;

/**
 * One Payara Micro instance, as its users start it: {@code java -jar payara-micro.jar --deploy app.war},
 * on a port of its own, with a root directory of its own and no clustering (two instances on one
 * machine would otherwise form a Hazelcast cluster).
 */
final class PayaraMicroInstance extends RunningServer {
    static final Path MICRO = Path.of(System.getProperty("payara.micro", "target/payara-micro.jar"));
    private final Path root;
    private int port;

    PayaraMicroInstance(String name) {
        super(name, MICRO.getParent().resolve("payara-" + name + ".log"));
        this.root = MICRO.getParent().resolve("payara-" + name);
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
        launch(new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlocked-app.instance=" + name(), "-jar", MICRO.toString(),
                "--deploy", war.toString(), "--contextroot", "app", "--port", Integer.toString(port),
                "--nocluster", "--nohazelcast", "--rootdir", root.toString())), awaitReady);
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
}
