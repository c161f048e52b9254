package io.locked.payara;

import io.locked.eeapp.EeApplicationTests;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One Payara Micro instance, as its users start it: {@code java -jar payara-micro.jar --deploy app.war},
 * on a port of its own, with a root directory of its own and no clustering (two instances on one
 * machine would otherwise form a Hazelcast cluster).
 */
final class PayaraMicroInstance implements EeApplicationTests.Server, AutoCloseable {
    static final Path MICRO = Path.of(System.getProperty("payara.micro", "target/payara-micro.jar"));
    private static final Duration BOOT = Duration.ofSeconds(180);
    private final String name;
    private final Path root;
    private final Path log;
    private int port;
    private Process process;
    private long bootMillis;

    PayaraMicroInstance(String name) {
        this.name = name;
        this.root = MICRO.getParent().resolve("payara-" + name);
        this.log = MICRO.getParent().resolve("payara-" + name + ".log");
    }

    /**
     * Starts the instance with the WAR and waits until the application answers and the readiness
     * endpoint has Locked's check.
     *
     * @param war          the application
     * @param awaitReady   whether to wait for readiness (false for a deployment expected to fail)
     */
    PayaraMicroInstance start(Path war, boolean awaitReady) throws Exception {
        // a root directory left by an earlier run makes Payara Micro deploy its application again, and
        // then redeploy it from --deploy, undeploying it for a moment while the tests run
        deleteTree(root);
        port = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dlocked-app.instance=" + name, "-jar", MICRO.toString(),
                "--deploy", war.toString(), "--contextroot", "app", "--port", Integer.toString(port),
                "--nocluster", "--nohazelcast", "--rootdir", root.toString()));
        long started = System.nanoTime();
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (awaitReady) {
            awaitReady();
            bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        }
        return this;
    }

    @Override
    public String name() {
        return name;
    }

    long bootMillis() {
        return bootMillis;
    }

    @Override
    public URI http() {
        return URI.create("http://127.0.0.1:" + port + "/app/");
    }

    @Override
    public URI readiness() {
        return URI.create("http://127.0.0.1:" + port + "/health/ready");
    }

    Process process() {
        return process;
    }

    String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void awaitReady() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + BOOT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError("Payara Micro " + name + " exited with " + process.exitValue() + ":\n" + log());
            }
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(readiness()).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200 && ready.body().contains("\"locked\"")) {
                    return;
                }
                last = ready.statusCode() + " " + ready.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(200); // polling interval of the readiness endpoint
        }
        throw new AssertionError("Payara Micro " + name + " was not ready within " + BOOT + " (last: " + last + "):\n" + log());
    }

    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
