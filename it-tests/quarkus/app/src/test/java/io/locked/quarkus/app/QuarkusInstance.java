package io.locked.quarkus.app;

import io.locked.eeapp.RunningServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One instance of the packaged application, started as its users start it: {@code java -jar quarkus-run.jar}. */
final class QuarkusInstance extends RunningServer {
    static final Path APP = Path.of(System.getProperty("locked.quarkus.app", "target/quarkus-app/quarkus-run.jar"));
    /** libfaketime from Debian's package faketime, which {@code .ci/run} installs. */
    static final Path FAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1");
    private final Map<String, String> environment = new HashMap<>();
    private int port;

    QuarkusInstance(String name) throws Exception {
        super(name, Files.createTempFile("quarkus-" + name + "-", ".log"));
    }

    /** @param settings system properties beyond the port and the instance's name, {@code -Dkey=value} */
    QuarkusInstance start(String... settings) throws Exception {
        return start(true, settings);
    }

    /**
     * Starts the process without waiting for readiness: for a start that is to fail, or an instance
     * that is not to be ready yet.
     */
    QuarkusInstance startUnready(String... settings) throws Exception {
        return start(false, settings);
    }

    private QuarkusInstance start(boolean awaitReady, String... settings) throws Exception {
        if (!Files.exists(APP)) {
            throw new IllegalStateException("the packaged application is missing: " + APP);
        }
        port = freePort();
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port, "-Dlocked-app.instance=" + name()));
        command.addAll(List.of(settings));
        command.addAll(List.of("-jar", APP.toString()));
        ProcessBuilder process = new ProcessBuilder(command);
        process.environment().putAll(environment);
        launch(process, awaitReady);
        return this;
    }

    /**
     * Sets the instance's wall clock ahead of the machine's (libfaketime), as a host whose clock
     * drifted would have it: its cron triggers fire at other moments than the other instances'. Its
     * monotonic clock stays true, so that waits and timeouts keep their length.
     */
    QuarkusInstance clockAhead(Duration offset) {
        if (!Files.exists(FAKETIME)) {
            throw new IllegalStateException("libfaketime is missing (" + FAKETIME + "): apt-get install faketime");
        }
        environment.put("LD_PRELOAD", FAKETIME.toString());
        environment.put("FAKETIME", "+" + offset.toMillis() / 1000.0 + "s");
        environment.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
        environment.put("FAKETIME_FORCE_MONOTONIC_FIX", "0");
        return this;
    }

    @Override
    public URI http() {
        return URI.create("http://127.0.0.1:" + port + "/");
    }

    @Override
    public URI readiness() {
        return URI.create("http://127.0.0.1:" + port + "/q/health/ready");
    }
}
