package io.locked.it.weldse;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.testing.TestDatabase;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Weld SE application needs no more than the dependencies docs/getting-started.md lists, and no config
 * library at all. Builds app/ (a standalone Maven project with exactly the doc's list) with a nested
 * Maven, then runs its main class as a JVM of its own against MariaDB (database locked_weld_se), once
 * with the whole list, once without MicroProfile Config, once with its API but no implementation. The
 * application's @Locked method says OPTIMISTIC; its microprofile-config.properties says PESSIMISTIC.
 */
class WeldSeApplicationIT {
    private static final String DATABASE = "locked_weld_se";
    private static final String NO_CONFIG_LOG = "so @Locked settings come from annotations and defaults only";
    // SmallRye Config and what only it brings (not io.smallrye:jandex, which Hibernate needs)
    private static final Predicate<String> CONFIG_IMPLEMENTATION =
            jar -> jar.contains("/io/smallrye/config/") || jar.contains("/io/smallrye/common/");
    private static final Predicate<String> CONFIG_API = jar -> jar.contains("/org/eclipse/microprofile/config/");
    private static Path work;
    private static List<String> classpath;
    private static String url;

    @BeforeAll
    static void buildTheApplication() throws Exception {
        TestDatabase.MARIADB.requireReachable();
        url = TestDatabase.MARIADB.url().replaceFirst("(//[^/]+/)[^?]*", "$1" + DATABASE);
        createLockTable();
        work = Path.of(System.getProperty("weld-se.work"));
        deleteTree(work);
        copyTree(Path.of(System.getProperty("weld-se.app")), work);
        Path settings = work.resolve("settings.xml");
        Files.writeString(settings, settings(Path.of(System.getProperty("weld-se.outer-repository"))));
        Path classpathFile = work.resolve("classpath.txt");
        Path mvn = Path.of(System.getProperty("maven.home"), "bin", "mvn");
        Path log = work.resolve("build.log");
        int exit = run(List.of(mvn.toString(), "-B", "-q", "-s", settings.toString(),
                "-Dmaven.repo.local=" + System.getProperty("weld-se.repository"),
                "-Dlocked.version=" + System.getProperty("weld-se.locked-version"),
                "-f", work.resolve("pom.xml").toString(),
                "compile", "dependency:build-classpath", "-Dmdep.includeScope=runtime",
                "-Dmdep.outputFile=" + classpathFile), log, 10);
        assertEquals(0, exit, () -> "the application did not build:\n" + read(log));
        classpath = new ArrayList<>();
        classpath.add(work.resolve("target/classes").toString());
        for (String jar : Files.readString(classpathFile).trim().split(File.pathSeparator)) {
            classpath.add(jar.replace('\\', '/'));
        }
    }

    @Test
    void theDocumentedDependenciesRunALockedCallWithConfigOverrides() throws Exception {
        String output = runApplication(classpath);
        assertTrue(output.contains("locked call: key=weld-se-app mode=PESSIMISTIC held=true"), output);
        assertFalse(output.contains(NO_CONFIG_LOG), output);
    }

    @Test
    void withoutMicroProfileConfigTheAnnotationAppliesAndTheLogSaysSo() throws Exception {
        String output = runApplication(classpath.stream().filter(CONFIG_IMPLEMENTATION.or(CONFIG_API).negate()).toList());
        assertTrue(output.contains("locked call: key=weld-se-app mode=OPTIMISTIC held=true"), output);
        assertEquals(1, occurrences(output, "MicroProfile Config is not on the class path, " + NO_CONFIG_LOG), output);
    }

    @Test
    void withTheConfigApiButNoImplementationTheAnnotationAppliesAndTheLogSaysSo() throws Exception {
        List<String> apiOnly = classpath.stream().filter(CONFIG_IMPLEMENTATION.negate()).toList();
        assertTrue(apiOnly.stream().anyMatch(CONFIG_API), "the documented list brings the API: " + apiOnly);
        String output = runApplication(apiOnly);
        assertTrue(output.contains("locked call: key=weld-se-app mode=OPTIMISTIC held=true"), output);
        assertEquals(1, occurrences(output, "no implementation of it, " + NO_CONFIG_LOG), output);
    }

    @Test
    void theDocsListExactlyTheApplicationsDependencies() throws IOException {
        String docs = Files.readString(Path.of(System.getProperty("weld-se.docs")));
        Matcher section = Pattern.compile("(?ms)^## Weld SE and Java SE$(.*?)(?=^## |\\z)").matcher(docs);
        assertTrue(section.find(), "no section 'Weld SE and Java SE' in docs/getting-started.md");
        assertEquals(dependencies(read(Path.of(System.getProperty("weld-se.app"), "pom.xml"))), dependencies(section.group(1)));
    }

    private static String runApplication(List<String> jars) throws Exception {
        Path log = Files.createTempFile(work, "run", ".log");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        // C1 only: these runs are short, and a busy machine runs them twice as fast
        int exit = run(List.of(java.toString(), "-XX:TieredStopAtLevel=1", "-cp", String.join(File.pathSeparator, jars),
                "-Dapp.jdbc.url=" + url, "-Dapp.jdbc.user=" + TestDatabase.MARIADB.user(),
                "-Dapp.jdbc.password=" + TestDatabase.MARIADB.password(), "com.acme.Main"), log, 2);
        String output = read(log);
        assertEquals(0, exit, output);
        return output;
    }

    // the <dependencies> element, without comments and with whitespace made one space
    private static String dependencies(String text) {
        Matcher element = Pattern.compile("(?s)<dependencies>.*?</dependencies>").matcher(text);
        assertTrue(element.find(), "no <dependencies> in " + text);
        return element.group().replaceAll("(?s)<!--.*?-->", "").replaceAll("\\s+", " ").replace("> <", "><");
    }

    private static int run(List<String> command, Path log, int minutes) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().merge("MAVEN_OPTS", "-XX:TieredStopAtLevel=1", (set, added) -> set + " " + added);
        Process process = builder.start();
        if (!process.waitFor(minutes, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError(String.join(" ", command) + " did not end within " + minutes + " min:\n" + read(log));
        }
        return process.exitValue();
    }

    // the lock table from lock-jpa's script, as the application's migrations would create it
    private static void createLockTable() throws IOException, SQLException {
        String script;
        try (InputStream in = WeldSeApplicationIT.class.getResourceAsStream("/META-INF/locked/schema-mysql.sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8).replaceAll("(?m)^--.*$", "");
        }
        try (Connection connection = DriverManager.getConnection(url, TestDatabase.MARIADB.user(), TestDatabase.MARIADB.password());
             Statement statement = connection.createStatement()) {
            for (String sql : script.split(";")) {
                if (!sql.isBlank()) {
                    statement.execute(sql);
                }
            }
        }
    }

    // the build's own local repository, read as a remote one: the nested build never writes to it
    private static String settings(Path outerRepository) {
        String url = outerRepository.toUri().toString();
        return """
                <settings>
                  <profiles>
                    <profile>
                      <id>outer-repository</id>
                      <repositories><repository><id>outer</id><url>%1$s</url></repository></repositories>
                      <pluginRepositories><pluginRepository><id>outer</id><url>%1$s</url></pluginRepository></pluginRepositories>
                    </profile>
                  </profiles>
                  <activeProfiles><activeProfile>outer-repository</activeProfile></activeProfiles>
                </settings>
                """.formatted(url);
    }

    private static int occurrences(String text, String part) {
        return text.split(Pattern.quote(part), -1).length - 1;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : paths.filter(path -> !from.relativize(path).startsWith("target")).toList()) {
                Files.copy(path, to.resolve(from.relativize(path).toString()));
            }
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            try (Stream<Path> paths = Files.walk(root)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
    }
}
