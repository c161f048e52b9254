package io.locked.eeapp;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A server process of a test, started from the build: its output in a log file, its boot timed up to
 * the moment its readiness endpoint answers UP with Locked's check in it, and the process, with any
 * it started, ended at close.
 */
public abstract class RunningServer implements EeApplicationTests.Server, AutoCloseable {
    private static final Duration BOOT = Duration.ofSeconds(180);
    /** libfaketime from Debian's package faketime, which {@code .ci/run} installs. */
    private static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
    private Duration clockAhead = Duration.ZERO;
    private final String name;
    private final Path log;
    private Process process;
    private long bootMillis;

    protected RunningServer(String name, Path log) {
        this.name = name;
        this.log = log;
    }

    /**
     * Starts the process and, if asked, waits until it is ready.
     *
     * @param command    the command line
     * @param awaitReady false for a deployment that is expected to fail
     */
    protected final void launch(ProcessBuilder command, boolean awaitReady) throws Exception {
        if (!clockAhead.isZero()) {
            command.environment().putAll(Map.of("LD_PRELOAD", FAKETIME.toString(),
                    "FAKETIME", "+" + clockAhead.toMillis() / 1000.0 + "s",
                    "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0"));
        }
        long started = System.nanoTime();
        process = command.redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (awaitReady) {
            awaitReady();
            bootMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        }
    }

    /**
     * Sets the server's wall clock ahead of the machine's (libfaketime, through the environment, so
     * that it reaches every process the start command spawns), as a host whose clock drifted would
     * have it. Its monotonic clock stays true, so that waits and timeouts keep their length. Call it
     * before the start.
     */
    public void setClockAhead(Duration offset) {
        if (!Files.exists(FAKETIME)) {
            throw new IllegalStateException("libfaketime is missing (" + FAKETIME + "): apt-get install faketime");
        }
        clockAhead = offset;
    }

    /** Fails at once if the server already reports what will keep it from becoming ready. */
    protected void checkStarting() throws IOException {
    }

    @Override
    public String name() {
        return name;
    }

    /** @return from the process's start to readiness UP */
    public long bootMillis() {
        return bootMillis;
    }

    public Process process() {
        return process;
    }

    public String log() {
        try {
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void awaitReady() throws Exception {
        HttpClient http = http(Duration.ofSeconds(2));
        long deadline = System.nanoTime() + BOOT.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + ":\n" + log());
            }
            checkStarting();
            try {
                HttpResponse<String> ready = http.send(HttpRequest.newBuilder(readiness()).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (ready.statusCode() == 200 && ready.body().contains("\"locked\"")) {
                    return;
                }
                String body = ready.body();
                last = ready.statusCode() + " " + (body.length() > 300 ? body.substring(0, 300) + "..." : body);
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(200); // polling interval of the readiness endpoint
        }
        throw new AssertionError(name + " was not ready within " + BOOT + " (last: " + last + ")\n" + whereItStands());
    }

    /**
     * What a server that did not get ready was doing: the stacks of its threads that run application
     * or deployment code, then the end of its log. A whole log starts with minutes of boot messages
     * and would push both out of a CI's excerpt. The whole thread dump is kept beside the log.
     */
    private String whereItStands() {
        String threads = threadDump();
        try {
            Files.writeString(log.resolveSibling(log.getFileName() + ".threads"), threads);
        } catch (IOException unwritable) {
            threads += "\n(thread dump not saved: " + unwritable + ")";
        }
        StringBuilder busy = new StringBuilder();
        for (String thread : threads.split("\n\n")) {
            if (thread.contains("io.locked") || thread.startsWith("\"main\"")) {
                busy.append(thread).append("\n\n");
            }
        }
        List<String> lines = log().lines().toList();
        return "threads running the application or its deployment:\n" + busy
                + "end of the log (" + log + "):\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 150), lines.size()));
    }

    /** @return the thread dump of the server's JVM (the started process, or the JVM a start script spawned) */
    private String threadDump() {
        StringBuilder dump = new StringBuilder();
        List<ProcessHandle> jvms = Stream.concat(Stream.of(process.toHandle()), process.descendants())
                .filter(handle -> handle.info().command().map(command -> command.endsWith("/java")).orElse(false))
                .toList();
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        for (ProcessHandle jvm : jvms) {
            try {
                Process print = new ProcessBuilder(jcmd.toString(), Long.toString(jvm.pid()), "Thread.print")
                        .redirectErrorStream(true).start();
                String out = new String(print.getInputStream().readAllBytes());
                print.waitFor(30, TimeUnit.SECONDS);
                dump.append(out);
            } catch (IOException failed) {
                dump.append("(no thread dump of ").append(jvm.pid()).append(": ").append(failed).append(")\n");
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return dump.isEmpty() ? "(no JVM among the server's processes)" : dump.toString();
    }

    @Override
    public void close() throws InterruptedException {
        if (process == null) {
            return;
        }
        List<ProcessHandle> started = process.descendants().toList();
        process.destroy();
        started.forEach(ProcessHandle::destroy);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        for (ProcessHandle child : started) {
            try {
                child.onExit().get(60, TimeUnit.SECONDS);
            } catch (Exception stillThere) {
                child.destroyForcibly();
            }
        }
    }

    /**
     * @return a client for the servers' HTTP endpoints, speaking HTTP/1.1 only: Java's client otherwise asks
     *         for an upgrade to HTTP/2 on every plain-text request, and Payara 7's Grizzly deadlocked two of
     *         its HTTP threads on such a connection (a 404 written while the client went away), after which
     *         that instance answered no readiness request
     */
    public static HttpClient http(Duration connectTimeout) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout).build();
    }

    protected static void deleteTree(Path tree) throws IOException {
        if (!Files.exists(tree)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(tree)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    protected static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
