package io.locked.wildfly;

import io.locked.eeapp.RunningServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One WildFly server of the unpacked distribution, with a base directory of its own (a copy of
 * {@code standalone/}) and its ports shifted by an offset, started as {@code bin/standalone.sh} starts
 * it. Which distribution, and on which database, is the lane's: the failsafe execution sets them (one
 * per WildFly; the instances' files are named after the lane). Its configuration is the default one
 * (which has EJB, for the scheduled jobs' timers, and MicroProfile Config) with MicroProfile Health
 * added as the MicroProfile configuration has it (which has no EJB), and the application's datasource
 * added by the {@code jboss-cli} commands of {@value #DATASOURCE_COMMANDS} (the ones
 * docs/getting-started.md shows, with the lane's database in the URL), run once per test JVM
 * in an embedded server against a copy of {@code standalone/} that every instance then copies.
 * Deployments go in through the deployment scanner: the JDBC driver and the WAR, as files in
 * {@code deployments/}. With {@link #exportingSpansTo}, the configuration has OpenTelemetry and
 * MicroProfile Telemetry too; with {@link #exportingMetersTo}, Micrometer.
 */
final class WildFlyInstance extends RunningServer {
    static final Path HOME = Path.of(System.getProperty("wildfly.home", "target/wildfly"));
    /** the lane's name (wildfly, wildfly-preview): its logs, its base directories and its figures */
    static final String LANE = System.getProperty("wildfly.lane", "wildfly");
    /** the application's database (MariaDB), which the datasource's URL names */
    static final String DATABASE = System.getProperty("wildfly.database", "locked_wildfly");
    /** the datasource's URL as app-datasource.cli (and the docs) have it, on the first lane's database */
    private static final String DOCUMENTED_URL = "--connection-url=jdbc:mysql://127.0.0.1:3306/locked_wildfly ";
    private static final String CONFIGURATION = "standalone-locked.xml";
    static final String DATASOURCE_COMMANDS = "/app-datasource.cli";
    /** standalone/ with the datasource added: made once, as a user runs the commands once. */
    private static final Path STANDALONE_WITH_DATASOURCE = HOME.getParent().resolve(LANE + "-standalone-with-datasource");
    private static boolean datasourceAdded;
    /** How long finished spans wait for their export (the SDK's default is 5 s). */
    private static final int BATCH_DELAY_MILLIS = 100;
    private final int portOffset;
    private final Path base;
    private final Map<String, String> systemProperties = new LinkedHashMap<>();
    private URI otlpEndpoint;
    private URI metersEndpoint;
    private final List<String> debugCategories = new ArrayList<>();

    WildFlyInstance(String name, int portOffset) {
        super(name, HOME.getParent().resolve(LANE + "-" + name + ".log"));
        this.portOffset = portOffset;
        this.base = HOME.getParent().resolve(LANE + "-" + name);
    }

    /**
     * Adds the {@code opentelemetry} and {@code microprofile-telemetry} subsystems, as
     * standalone-microprofile.xml has them, with the exporter's endpoint set and a short batch delay.
     * WildFly 39's subsystem hands the SDK only the batch processor's settings (its {@code simple}
     * processor is accepted but not applied), and sets {@code otel.exporter.otlp.protocol=grpc}, which
     * the application's configuration may override. Call it before {@link #prepare}.
     *
     * @param endpoint the OTLP endpoint, without the signal's path
     */
    WildFlyInstance exportingSpansTo(URI endpoint) {
        this.otlpEndpoint = endpoint;
        return this;
    }

    /**
     * Adds the {@code micrometer} subsystem as WildFly's guide adds it ({@code jboss-cli}), publishing the
     * server's registry over OTLP every second. Call it before {@link #prepare}.
     *
     * @param endpoint the OTLP endpoint, without the signal's path
     */
    WildFlyInstance exportingMetersTo(URI endpoint) {
        this.metersEndpoint = endpoint;
        return this;
    }

    /**
     * Logs a category at DEBUG (FINE) in the server's log file, {@code log/server.log} of its base
     * directory; the console stays at INFO. Call it before {@link #prepare}.
     */
    WildFlyInstance debugging(String category) {
        debugCategories.add(category);
        return this;
    }

    /** A system property of the server's JVM: MicroProfile Config reads it above the application's own file. */
    WildFlyInstance systemProperty(String name, String value) {
        systemProperties.put(name, value);
        return this;
    }

    /** Copies the server's base directory afresh and puts the given files in its deployments. */
    WildFlyInstance prepare(Path... deployments) throws IOException {
        if (!Files.isDirectory(HOME)) {
            throw new IllegalStateException("WildFly is not unpacked at " + HOME + ": run the module's pre-integration-test phase");
        }
        deleteTree(base);
        copyTree(standaloneWithDataSource(), base);
        writeConfiguration();
        if (metersEndpoint != null) {
            // WildFly 39's configuration has no micrometer subsystem, WildFly Preview 38's has one without an endpoint
            runOffline(base, CONFIGURATION, """
                    if (outcome != success) of /extension=org.wildfly.extension.micrometer:read-resource
                        /extension=org.wildfly.extension.micrometer:add
                        /subsystem=micrometer:add
                    end-if
                    /subsystem=micrometer:write-attribute(name=endpoint, value="%s")
                    /subsystem=micrometer:write-attribute(name=step, value=1)
                    """.formatted(metersEndpoint.resolve("/v1/metrics")));
        }
        for (Path deployment : deployments) {
            Files.copy(deployment, deployments().resolve(deployment.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        return this;
    }

    /** Starts the server and waits until its readiness endpoint answers UP, Locked's check included. */
    WildFlyInstance start() throws Exception {
        return start(true);
    }

    /** Starts the server and returns at once: for an application whose deployment is meant to fail. */
    WildFlyInstance startWithoutWaiting() throws Exception {
        return start(false);
    }

    private WildFlyInstance start(boolean awaitReady) throws Exception {
        List<String> command = new ArrayList<>(List.of(HOME.resolve("bin/standalone.sh").toString(),
                "-c", CONFIGURATION,
                "-Djboss.server.base.dir=" + base,
                "-Djboss.socket.binding.port-offset=" + portOffset,
                "-Djboss.tx.node.id=locked-" + name(), // two servers on one machine: transaction ids of their own
                "-Dlocked-app.instance=" + name()));
        systemProperties.forEach((name, value) -> command.add("-D" + name + "=" + value));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("LAUNCH_JBOSS_IN_BACKGROUND", "true"); // the script passes TERM on to the server
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        launch(builder, awaitReady);
        return this;
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

    /** The server's log file, which has every level the configuration logs (the console has INFO and above). */
    Path logFile() {
        return base.resolve("log/server.log");
    }

    @Override
    protected void checkStarting() throws IOException {
        try (Stream<Path> markers = Files.list(deployments())) {
            List<Path> failed = markers.filter(path -> path.toString().endsWith(".failed")).toList();
            if (!failed.isEmpty()) {
                throw new AssertionError("WildFly " + name() + " failed a deployment: " + Files.readString(failed.get(0)) + "\n" + log());
            }
        }
    }

    private static synchronized Path standaloneWithDataSource() throws IOException {
        if (!datasourceAdded) {
            deleteTree(STANDALONE_WITH_DATASOURCE);
            copyTree(HOME.resolve("standalone"), STANDALONE_WITH_DATASOURCE);
            runOffline(STANDALONE_WITH_DATASOURCE, "standalone.xml", onLaneDatabase(readResource(DATASOURCE_COMMANDS)));
            datasourceAdded = true;
        }
        return STANDALONE_WITH_DATASOURCE;
    }

    /**
     * Runs {@code jboss-cli} commands against a configuration of a base directory, in an embedded
     * server in admin-only mode (no deployment, no datasource connects), before any server starts there.
     */
    private static void runOffline(Path baseDirectory, String configuration, String commands) throws IOException {
        Path script = baseDirectory.resolve("configure.cli");
        Path output = baseDirectory.resolve("configure.log");
        Files.writeString(script, "embed-server --server-config=" + configuration + "\n" + commands + "stop-embedded-server\n");
        ProcessBuilder builder = new ProcessBuilder(HOME.resolve("bin/jboss-cli.sh").toString(), "--file=" + script)
                .redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("JAVA_OPTS", "-Djboss.server.base.dir=" + baseDirectory);
        try {
            Process cli = builder.start();
            if (!cli.waitFor(120, TimeUnit.SECONDS)) {
                cli.destroyForcibly();
                throw new AssertionError("jboss-cli did not finish within 120 s:\n" + Files.readString(output));
            }
            if (cli.exitValue() != 0) {
                throw new AssertionError("jboss-cli failed (exit " + cli.exitValue() + ") on\n" + commands + Files.readString(output));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while jboss-cli ran", e);
        }
    }

    /** The documented commands with the lane's database in the URL: each lane has a lock table of its own. */
    static String onLaneDatabase(String commands) {
        if (!commands.contains(DOCUMENTED_URL)) {
            throw new IllegalStateException("the datasource commands no longer name " + DOCUMENTED_URL.trim()
                    + ", which the lanes replace by their own database:\n" + commands);
        }
        return commands.replace(DOCUMENTED_URL, DOCUMENTED_URL.replace("locked_wildfly ", DATABASE + " "));
    }

    private static String readResource(String name) throws IOException {
        try (InputStream in = WildFlyInstance.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no " + name + " on the test classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * standalone.xml plus MicroProfile Health (and, if asked, the telemetry subsystems): their
     * extensions and subsystems as standalone-microprofile.xml has them.
     */
    private void writeConfiguration() throws IOException {
        Path configuration = base.resolve("configuration");
        String microProfile = Files.readString(configuration.resolve("standalone-microprofile.xml"));
        String extension = line(microProfile, "<extension module=\"org.wildfly.extension.microprofile.health-smallrye\"/>");
        String subsystem = line(microProfile, "<subsystem xmlns=\"urn:wildfly:microprofile-health-smallrye:");
        if (otlpEndpoint != null) {
            extension += "\n" + line(microProfile, "<extension module=\"org.wildfly.extension.opentelemetry\"/>")
                    + "\n" + line(microProfile, "<extension module=\"org.wildfly.extension.microprofile.telemetry\"/>");
            String openTelemetry = line(microProfile, "<subsystem xmlns=\"urn:wildfly:opentelemetry:");
            subsystem += "\n" + openTelemetry.replace("/>", ">"
                    + "<exporter endpoint=\"" + otlpEndpoint + "\"/>"
                    + "<span-processor batch-delay=\"" + BATCH_DELAY_MILLIS + "\"/>"
                    + "</subsystem>")
                    + "\n" + line(microProfile, "<subsystem xmlns=\"urn:wildfly:microprofile-telemetry:");
        }
        String config = Files.readString(configuration.resolve("standalone.xml"));
        String rootLogger = line(config, "<root-logger>");
        for (String category : debugCategories) {
            config = config.replace(rootLogger, "<logger category=\"" + category + "\"><level name=\"DEBUG\"/></logger>\n" + rootLogger);
        }
        String configExtension = line(config, "<extension module=\"org.wildfly.extension.microprofile.config-smallrye\"/>");
        String configSubsystem = line(config, "<subsystem xmlns=\"urn:wildfly:microprofile-config-smallrye:");
        Files.writeString(configuration.resolve(CONFIGURATION), config
                .replace(configExtension, configExtension + "\n" + extension)
                .replace(configSubsystem, configSubsystem + "\n" + subsystem));
    }

    private static String line(String text, String containing) {
        return text.lines().filter(l -> l.contains(containing)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no line with " + containing + " in WildFly's configuration"));
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
}
