package io.locked.quarkus.app;

import io.locked.eeapp.RunningServer;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** One instance of the packaged application, started as its users start it: {@code java -jar quarkus-run.jar}. */
final class QuarkusInstance extends RunningServer {
    static final Path APP = Path.of(System.getProperty("locked.quarkus.app", "target/quarkus-app/quarkus-run.jar"));
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
        launch(new ProcessBuilder(command), awaitReady);
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
