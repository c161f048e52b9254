package io.locked.it.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A release rehearsal: the {@code release} profile, run as the release runs it, in a nested Maven on a
 * copy of the build set to the release version, with signing skipped and the upload going to a
 * {@link FakeCentralPortal} on loopback instead of Maven Central. The bundle it uploads must hold every
 * file Central requires (jar, sources, javadoc and pom of lock-cdi and lock-jpa; the poms of the BOM and
 * of the parent they inherit from) with checksums, and nothing of the test modules; every pom must carry,
 * itself or through its parents in the bundle, the metadata Central requires. Last, an application whose
 * pom is the README's dependency block must get lock-jpa and lock-cdi from the bundle alone.
 */
class ReleaseBundleTest {
    private static final List<String> POM_ONLY = List.of("lock-bom", "locked-parent");
    private static final List<String> WITH_JAR = List.of("lock-cdi", "lock-jpa");
    // the test jars are attached by every build (lock-jpa's tests use lock-cdi's), so a release ships them too
    private static final List<String> JAR_CLASSIFIERS = List.of("", "-sources", "-javadoc", "-tests");

    @Test
    void theReleaseProfileUploadsEveryFileCentralRequires(@TempDir Path copy) throws Exception {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        String snapshot = required("locked.version");
        String release = snapshot.replace("-SNAPSHOT", "");
        BuildCopy.of(root, copy, List.of("lock-bom", "lock-cdi", "lock-jpa"), snapshot, release);

        try (FakeCentralPortal portal = new FakeCentralPortal()) {
            runRelease(copy, portal);
            assertNotNull(portal.bundle(), "the release uploaded no bundle");
            assertTrue(portal.uploadQuery().contains("publishingType=USER_MANAGED"),
                    "a release must wait for someone to publish it by hand: " + portal.uploadQuery());
            Map<String, byte[]> files = unzip(portal.bundle());

            Set<String> expected = new TreeSet<>();
            POM_ONLY.forEach(artifact -> expected.add(path(artifact, release, "", "pom")));
            for (String artifact : WITH_JAR) {
                expected.add(path(artifact, release, "", "pom"));
                JAR_CLASSIFIERS.forEach(classifier -> expected.add(path(artifact, release, classifier, "jar")));
            }
            Set<String> artifacts = new TreeSet<>(files.keySet());
            artifacts.removeIf(name -> name.matches(".*\\.(md5|sha1|sha256|sha512|asc)$") || name.endsWith("/"));
            Set<String> missing = new TreeSet<>(expected);
            missing.removeAll(artifacts);
            Set<String> unexpected = new TreeSet<>(artifacts);
            unexpected.removeAll(expected);
            assertTrue(missing.isEmpty() && unexpected.isEmpty(),
                    "missing from the bundle: " + missing + "; in it but not expected: " + unexpected);
            for (String file : expected) {
                assertTrue(files.containsKey(file + ".md5") && files.containsKey(file + ".sha1"), "no checksums for " + file);
            }

            for (String artifact : WITH_JAR) {
                assertTrue(entries(files.get(path(artifact, release, "-javadoc", "jar"))).contains("index.html"),
                        artifact + "'s javadoc jar has no index.html");
                assertTrue(entries(files.get(path(artifact, release, "-sources", "jar"))).stream()
                        .anyMatch(entry -> entry.endsWith(".java")), artifact + "'s sources jar has no source");
            }
            assertTrue(entries(files.get(path("lock-cdi", release, "-javadoc", "jar"))).contains("io/locked/api/Locked.html"));
            assertTrue(entries(files.get(path("lock-jpa", release, "-javadoc", "jar"))).contains("io/locked/jpa/LockRow.html"));

            Map<String, PublishedPom> poms = new TreeMap<>();
            for (String artifact : concat(POM_ONLY, WITH_JAR)) {
                poms.put(artifact, PublishedPom.parse(files.get(path(artifact, release, "", "pom"))));
            }
            for (Map.Entry<String, PublishedPom> pom : poms.entrySet()) {
                assertFalse(pom.getValue().text().contains("SNAPSHOT"), pom.getKey() + "'s pom names a snapshot");
                for (String required : PublishedPom.REQUIRED) {
                    assertTrue(pom.getValue().has(required, poms), pom.getKey() + "'s pom has no " + required
                            + ", neither itself nor through a parent in the bundle");
                }
            }
            PublishedPom bom = poms.get("lock-bom");
            assertEquals(null, bom.parent(), "an imported BOM must not bring a parent's dependencyManagement");
            assertEquals(List.of("io.locked:lock-cdi:${project.version}", "io.locked:lock-jpa:${project.version}"),
                    bom.managedDependencies());

            // the README's dependency block, at the release version, resolves both from the bundle alone
            Path application = copy.resolve("application");
            BundleConsumer.write(application, root.resolve("README.md"), files, snapshot, release,
                    Path.of(required("locked.maven.repo")));
            run(BundleConsumer.listDependencies(Path.of(required("locked.maven.home")), application), application,
                    "release-rehearsal-application.log");
            String dependencies = Files.readString(application.resolve("dependencies.txt"), StandardCharsets.UTF_8);
            assertTrue(dependencies.contains("io.locked:lock-jpa:jar:" + release + ":compile")
                    && dependencies.contains("io.locked:lock-cdi:jar:" + release + ":compile"),
                    "the README's dependency block did not bring lock-jpa and lock-cdi " + release + ":\n" + dependencies);
        }
    }

    private static void runRelease(Path copy, FakeCentralPortal portal) throws IOException, InterruptedException {
        Path settings = copy.resolve("central-server.xml");
        // the plugin wants credentials even for a portal that takes any; as global settings, the user's stay
        Files.writeString(settings, "<settings><servers><server><id>central</id><username>rehearsal</username>"
                + "<password>rehearsal</password></server></servers></settings>");
        // online (the publishing plugin does nothing offline); everything it needs is in the local repository
        run(List.of(Path.of(required("locked.maven.home"), "bin", "mvn").toString(),
                "-B", "-ntp", "-Prelease", "deploy", "-pl", "lock-bom,lock-cdi,lock-jpa", "-am",
                "-DskipTests", "-Dgpg.skip", "-Dmaven.install.skip=true",
                "-Dmaven.repo.local=" + required("locked.maven.repo"), "-gs", settings.toString(),
                "-DcentralBaseUrl=" + portal.baseUrl(), "-DwaitUntil=uploaded"), copy, "release-rehearsal.log");
    }

    private static void run(List<String> command, Path dir, String logName) throws IOException, InterruptedException {
        Path log = Path.of(System.getProperty("user.dir"), "target", logName);
        Files.createDirectories(log.getParent());
        Process maven = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!maven.waitFor(10, TimeUnit.MINUTES)) {
            maven.destroyForcibly();
            fail("Maven did not end within 10 minutes; its log: " + log);
        }
        if (maven.exitValue() != 0) {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            fail("Maven failed (" + log + "):\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size())));
        }
    }

    private static String path(String artifact, String version, String classifier, String extension) {
        return "io/locked/" + artifact + "/" + version + "/" + artifact + "-" + version + classifier + "." + extension;
    }

    private static Map<String, byte[]> unzip(byte[] zip) throws IOException {
        Map<String, byte[]> files = new TreeMap<>();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(zip))) {
            for (ZipEntry entry = in.getNextEntry(); entry != null; entry = in.getNextEntry()) {
                files.put(entry.getName(), in.readAllBytes());
            }
        }
        return files;
    }

    private static Set<String> entries(byte[] jar) throws IOException {
        return unzip(jar).keySet();
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertNotNull(value, "system property " + property + " is not set (it-tests' pom sets it for Surefire)");
        return value;
    }
}
