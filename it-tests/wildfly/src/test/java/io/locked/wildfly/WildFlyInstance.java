package io.locked.wildfly;

import io.locked.eeapp.EeApplicationTests;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One WildFly server of the unpacked distribution, with a base directory of its own (a copy of
 * {@code standalone/}) and its ports shifted by an offset, started with the MicroProfile configuration
 * as {@code bin/standalone.sh} starts it. Deployments go in through the deployment scanner: the JDBC
 * driver, the datasource ({@code app-ds.xml}) and the WAR, as files in {@code deployments/}.
 */
final class WildFlyInstance implements EeApplicationTests.Server, AutoCloseable {
    static final Path HOME = Path.of(System.getProperty("wildfly.home", "target/wildfly"));
    private static final Duration BOOT = Duration.ofSeconds(180);
    private final String name;
    private final int portOffset;
    private final Path base;
    private final Path log;
    private Process process;
    private long bootMillis;

    WildFlyInstance(String name, int portOffset) {
        this.name = name;
        this.portOffset = portOffset;
        this.base = HOME.getParent().resolve("instance-" + name);
        this.log = HOME.getParent().resolve("instance-" + name + ".log");
    }

    /** Copies the server's base directory afresh and puts the given files in its deployments. */
    WildFlyInstance prepare(Path... deployments) throws IOException {
        if (!Files.isDirectory(HOME)) {
            throw new IllegalStateException("WildFly is not unpacked at " + HOME + ": run the module's pre-integration-test phase");
        }
        deleteTree(base);
        copyTree(HOME.resolve("standalone"), base);
        for (Path deployment : deployments) {
            Files.copy(deployment, base.resolve("deployments").resolve(deployment.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        return this;
    }

    /** Starts the server and waits until its readiness endpoint answers UP, Locked's check included. */
    WildFlyInstance start(String... systemProperties) throws Exception {
        List<String> command = new ArrayList<>(List.of(HOME.resolve("bin/standalone.sh").toString(),
                "-c", "standalone-microprofile.xml",
                "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + portOffset,
                "-Djboss.tx.node.id=locked-" + name, // two servers on one machine: transaction ids of their own
                "-Dlocked-app.instance=" + name));
        command.addAll(List.of(systemProperties));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().put("LAUNCH_JBOSS_IN_BACKGROUND", "true"); // the script passes TERM on to the server
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        long started = System.nanoTime();
        process = builder.start();
        awaitReady();
        bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
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
        return URI.create("http://127.0.0.1:" + (8080 + portOffset) + "/app/");
    }

    @Override
    public URI readiness() {
        return URI.create("http://127.0.0.1:" + (9990 + portOffset) + "/health/ready");
    }

    Path deployments() {
        return base.resolve("deployments");
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
                throw new AssertionError("WildFly " + name + " exited with " + process.exitValue() + ":\n" + log());
            }
            try (Stream<Path> markers = Files.list(deployments())) {
                List<Path> failed = markers.filter(path -> path.toString().endsWith(".failed")).toList();
                if (!failed.isEmpty()) {
                    throw new AssertionError("WildFly " + name + " failed a deployment: " + Files.readString(failed.get(0)) + "\n" + log());
                }
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
        throw new AssertionError("WildFly " + name + " was not ready within " + BOOT + " (last: " + last + "):\n" + log());
    }

    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.destroy();
        tree.forEach(ProcessHandle::destroy);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        for (ProcessHandle child : tree) {
            try {
                child.onExit().get(60, TimeUnit.SECONDS);
            } catch (Exception stillThere) {
                child.destroyForcibly();
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            paths.forEach(path -> {
                try {
                    Path target = to.resolve(from.relativize(path).toString());
                    if (Files.isDirectory(path)) {
                        Files.createDirectories(target);
                    } else {
                        Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
                Files.delete(path);
            }
        }
    }
}
