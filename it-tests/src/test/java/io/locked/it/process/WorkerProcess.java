package io.locked.it.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A {@link LockWorker} JVM started with this test JVM's classpath. */
final class WorkerProcess implements AutoCloseable {
    private final Process process;
    private final BufferedReader output;
    private final Path log;

    private WorkerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
        this.output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static WorkerProcess start(Path log, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                LockWorker.class.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new WorkerProcess(process, log);
    }

    /** @return the next line the worker printed, or null if it ended */
    String readLine(long timeoutSeconds) throws Exception {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return output.readLine();
            } catch (IOException e) {
                return null;
            }
        }).get(timeoutSeconds, TimeUnit.SECONDS);
    }

    int waitForExit(long timeoutSeconds) throws InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("worker " + process.pid() + " did not finish in " + timeoutSeconds + "s");
        }
        return process.exitValue();
    }

    /** @return the end of what the worker wrote to stderr, for a failure message */
    String logTail() {
        try {
            List<String> lines = java.nio.file.Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException unreadable) {
            return "(cannot read " + log + ": " + unreadable + ")";
        }
    }

    /** SIGKILL: no shutdown hook, no finally block, no release. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
