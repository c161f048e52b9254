package io.locked.it.process;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * A {@link LockWorker} JVM started with this test JVM's classpath. Its standard output is read on
 * a thread of its own, line by line, into a sink: by default a queue for {@link #readLine}, or the
 * test's own consumer of events. Its standard error goes to a log file.
 */
public final class WorkerProcess implements AutoCloseable {
    private final Process process;
    private final Path log;
    private final Writer commands;
    private final BlockingQueue<String> lines;
    private final Thread pump;
    private boolean suspended;

    private WorkerProcess(Process process, Path log, Consumer<String> sink, BlockingQueue<String> lines) {
        this.process = process;
        this.log = log;
        this.lines = lines;
        this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.pump = new Thread(() -> pump(sink), "worker-" + process.pid() + "-output");
        pump.setDaemon(true);
        pump.start();
    }

    static WorkerProcess start(Path log, String... args) throws IOException {
        return start(log, Map.of(), args);
    }

    /** A worker whose lines are awaited with {@code awaitLine}, with variables set in its environment. */
    static WorkerProcess start(Path log, Map<String, String> environment, String... args) throws IOException {
        BlockingQueue<String> queue = new LinkedBlockingQueue<>();
        return start(log, environment, queue::add, queue, args);
    }

    /**
     * @param log         file for the worker's standard error
     * @param environment variables to set in the worker (for instance the database URL it uses)
     * @param sink        receives every line the worker prints, on the reading thread
     * @param args        the worker's arguments, see {@link LockWorker}
     * @return the started worker
     */
    public static WorkerProcess start(Path log, Map<String, String> environment, Consumer<String> sink, String... args)
            throws IOException {
        return start(log, environment, sink, null, args);
    }

    private static WorkerProcess start(Path log, Map<String, String> environment, Consumer<String> sink,
                                       BlockingQueue<String> lines, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m", "-XX:TieredStopAtLevel=1"));
        String logging = System.getProperty("java.util.logging.config.file");
        if (logging != null) {
            command.add("-Djava.util.logging.config.file=" + logging);
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), LockWorker.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        return new WorkerProcess(builder.start(), log, sink, lines);
    }

    private void pump(Consumer<String> sink) {
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = output.readLine()) != null) {
                sink.accept(line);
            }
        } catch (IOException ended) {
            // the worker is gone; waitForExit tells how
        }
    }

    /**
     * @param prefix what the awaited line starts with; other lines before it are dropped
     * @return that line, or null if the worker ended without printing it
     */
    String awaitLine(String prefix, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            String line = lines.poll(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)), TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
            if (line == null && !pump.isAlive() && lines.isEmpty()) {
                return null;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("worker " + pid() + " printed no '" + prefix + "' in " + timeoutSeconds + "s");
            }
        }
    }

    /** Sends one command line to the worker's standard input (see {@link WorkerControl}). */
    public void send(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    /**
     * SIGSTOP: the whole JVM stands still, its lease watchdog too, as in a long GC pause. Returns once every
     * thread of it has stopped: {@code kill} returns as soon as the signal is queued, and the process stops only
     * when one of its threads, woken for it, stops the others. Until then they run on: a gated holder sent its
     * {@code open} right after the {@code kill} once wrote its counter before its pause (its late write then
     * overwrote nothing, and the pause test's negative control saw no lost update).
     */
    public void suspend() throws IOException, InterruptedException {
        signal("STOP");
        awaitEveryThreadStopped();
        suspended = true;
    }

    private void awaitEveryThreadStopped() throws IOException, InterruptedException {
        Path threads = Path.of("/proc", String.valueOf(pid()), "task");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!everyThreadStopped(threads)) {
            if (!process.isAlive()) {
                throw new IllegalStateException("worker " + pid() + " ended instead of stopping:\n" + logTail());
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("worker " + pid() + " did not stop within 30 s of its SIGSTOP");
            }
            Thread.sleep(1);
        }
    }

    /**
     * @return whether every thread's state in {@code /proc} is stopped ({@code T}); a thread that ended meanwhile
     *         counts as stopped. Elsewhere than Linux, where {@code /proc} has no threads, the process's state
     *         as {@code ps} shows it.
     */
    private boolean everyThreadStopped(Path threads) throws IOException, InterruptedException {
        if (!Files.isDirectory(Path.of("/proc", "self", "task"))) {
            Process ps = new ProcessBuilder("ps", "-o", "stat=", "-p", String.valueOf(pid())).start();
            String state = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            ps.waitFor();
            return state.startsWith("T");
        }
        List<Path> each;
        try (Stream<Path> listed = Files.list(threads)) {
            each = listed.toList();
        }
        for (Path thread : each) {
            String stat;
            try {
                stat = Files.readString(thread.resolve("stat"), StandardCharsets.UTF_8);
            } catch (NoSuchFileException ended) {
                continue;
            }
            // "tid (name) state ...": the name may hold spaces and parentheses, so the state follows the last ')'
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            if (state != 'T' && state != 't') {
                return false;
            }
        }
        return true;
    }

    /** SIGCONT after {@link #suspend()}. */
    public void resume() throws IOException, InterruptedException {
        signal("CONT");
        suspended = false;
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
        }
    }

    /**
     * @return the worker's exit status
     * @throws IllegalStateException if it did not end in time; its threads are dumped to its log first
     */
    public int waitForExit(long timeoutSeconds) throws InterruptedException {
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
            dumpThreads();
            throw new IllegalStateException("worker " + process.pid() + " did not finish in " + timeoutSeconds
                    + "s (its threads are dumped in " + log + ")");
        }
        pump.join(TimeUnit.SECONDS.toMillis(10));
        return process.exitValue();
    }

    private void dumpThreads() {
        try {
            if (suspended) {
                resume();
            }
            Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    String.valueOf(pid()), "Thread.print")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
            dump.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException | IllegalStateException ignored) {
            // best effort, for diagnosis only
        }
    }

    /** @return the end of what the worker wrote to stderr, for a failure message */
    public String logTail() {
        try {
            List<String> logLines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", logLines.subList(Math.max(0, logLines.size() - 40), logLines.size()));
        } catch (IOException unreadable) {
            return "(cannot read " + log + ": " + unreadable + ")";
        }
    }

    /**
     * SIGKILL: no shutdown hook, no finally block, no release. Works on a suspended worker too.
     *
     * @return {@link System#nanoTime()} once the signal was sent: the worker ran none of its code after
     *         it, while its sockets may close (and a database free its rows) before its exit is seen here
     */
    public long kill() throws InterruptedException {
        process.destroyForcibly();
        long signalled = System.nanoTime();
        process.waitFor(30, TimeUnit.SECONDS);
        return signalled;
    }

    /** @return the worker's process id */
    public long pid() {
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
