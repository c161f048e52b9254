package io.locked.jpa.testing.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A database server that a test runs as a child process, in a directory of its own: its steps
 * (install, initialize) with their output kept there, its start awaited on a condition, its error
 * log quoted when it fails. It is killed by {@link #close()} and, should the test JVM end first, by
 * a shutdown hook. Under CI=true a server that cannot be set up fails the test; elsewhere the test
 * is aborted with the reason. Shared by lock-jpa's tests (MySQL 8, PostgreSQL) and it-tests (MariaDB, Galera).
 */
public abstract class ServerProcess implements AutoCloseable {
    private static final long START_SECONDS = 60;
    protected final Path dir;
    private final String name;
    private final Thread killOnExit;
    private Process server;

    /** The condition a start waits for. */
    @FunctionalInterface
    protected interface Ready {
        boolean check() throws IOException, InterruptedException;
    }

    protected ServerProcess(Path dir, String name) {
        this.dir = dir;
        this.name = name;
        this.killOnExit = new Thread(this::kill, name + "-kill");
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /** Starts the server and returns once it is ready; its output goes to {@code server.out}. */
    protected final void launch(List<String> command, String readiness, Ready ready) throws IOException, InterruptedException {
        launch(command, Map.of(), readiness, ready);
    }

    /**
     * As {@link #launch(List, String, Ready)}, with variables added to the server's environment
     * (such as {@code TZ}, the zone a server reads as its system time zone).
     */
    protected final void launch(List<String> command, Map<String, String> environment, String readiness, Ready ready)
            throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()));
        builder.environment().putAll(environment);
        server = builder.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(START_SECONDS);
        while (!ready.check()) {
            if (!server.isAlive()) {
                unavailable(name + " exited with " + server.exitValue() + " on start:\n" + errorLogTail());
            }
            if (System.nanoTime() - deadline > 0) {
                unavailable(name + " did not " + readiness + " within " + START_SECONDS + "s:\n" + errorLogTail());
            }
            Thread.sleep(50);
        }
    }

    /**
     * Stops the server and waits until it is gone.
     *
     * @param crash SIGKILL (no shutdown, as in a crash) rather than SIGTERM (a clean shutdown)
     */
    public void stop(boolean crash) throws InterruptedException {
        if (crash) {
            server.destroyForcibly();
        } else {
            server.destroy();
        }
        if (!server.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not stop within 60s of SIG" + (crash ? "KILL" : "TERM"));
        }
    }

    /** Runs one step of the setup to its end, its output in {@code <step>.out}; a failure quotes it. */
    public static void run(Path dir, String step, List<String> command) throws IOException, InterruptedException {
        Path output = dir.resolve(step + ".out");
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
        if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            unavailable(step + " failed: " + String.join(" ", command) + "\n" + Files.readString(output, StandardCharsets.UTF_8));
        }
    }

    /** @return the log whose tail a failed start quotes: {@code error.log} in the server's directory */
    protected Path errorLog() {
        return dir.resolve("error.log");
    }

    /** @return the server's process as last launched, for what {@link #stop} does not do; null before */
    protected final Process process() {
        return server;
    }

    private String errorLogTail() {
        try {
            List<String> lines = Files.readAllLines(errorLog(), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException unreadable) {
            return "(no error log: " + unreadable + ")";
        }
    }

    /** @return the named program on PATH or in the usual system folders, or null */
    public static Path binary(String name) {
        List<Path> places = new ArrayList<>();
        for (String entry : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!entry.isEmpty()) {
                places.add(Path.of(entry));
            }
        }
        places.addAll(List.of(Path.of("/usr/sbin"), Path.of("/usr/local/sbin"), Path.of("/usr/bin")));
        return places.stream().map(place -> place.resolve(name)).filter(Files::isExecutable).findFirst().orElse(null);
    }

    /** @return a loopback port nobody listens on, outside the kernel's ephemeral range: see {@link ServerPorts} */
    public static int freePort() throws IOException {
        return ServerPorts.claim();
    }

    /** Deletes a server's directory, if it is there; what cannot be deleted is left to {@code mvn clean}. */
    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException leftOver) {
            // a later run starts on a directory of its own
        }
    }

    public static void unavailable(String reason) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError("private database server: " + reason
                    + " (CI=true: a server that cannot be started fails the build)");
        }
        Assumptions.abort("private database server: " + reason);
    }

    private void kill() {
        if (server != null && server.isAlive()) {
            server.destroyForcibly();
            try {
                server.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(killOnExit);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}
