package io.locked.payara;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * The {@code java} a Payara Micro version needs: the build's own if it is recent enough, else the
 * JDK the project's Java 25 lane runs on, found as {@code .ci/run} finds it ({@code -Dlocked.java25.home},
 * then {@code LOCKED_JAVA25_HOME}, then {@code /usr/lib/jvm/*25*}).
 */
final class ServerJava {
    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    private ServerJava() {
    }

    /**
     * @param minimumRelease the lowest Java feature release the server runs on
     * @return the {@code java} executable; fails under CI=true, skips elsewhere, when there is none
     */
    static Path atLeast(int minimumRelease) {
        if (Runtime.version().feature() >= minimumRelease) {
            return Path.of(System.getProperty("java.home"), "bin", "java");
        }
        List<Path> candidates = candidates();
        for (Path home : candidates) {
            if (Files.isExecutable(home.resolve("bin/java")) && release(home).orElse(0) >= minimumRelease) {
                return home.resolve("bin/java");
            }
        }
        String reason = "no Java " + minimumRelease + "+ for Payara Micro: the build runs on Java "
                + Runtime.version().feature() + ", and none of " + candidates + " is a JDK " + minimumRelease
                + " or later. Name one with -Dlocked.java25.home or LOCKED_JAVA25_HOME, or put it under /usr/lib/jvm";
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new AssertionError(reason + " (CI=true: a missing JDK fails the build)");
        }
        Assumptions.abort(reason);
        throw new IllegalStateException("unreachable");
    }

    private static List<Path> candidates() {
        List<Path> homes = new ArrayList<>();
        for (String named : new String[] {System.getProperty("locked.java25.home"), System.getenv("LOCKED_JAVA25_HOME")}) {
            if (named != null && !named.isBlank()) {
                homes.add(Path.of(named));
            }
        }
        try (DirectoryStream<Path> jvms = Files.newDirectoryStream(Path.of("/usr/lib/jvm"), "*25*")) {
            jvms.forEach(homes::add);
        } catch (IOException | RuntimeException noJvmFolder) {
            // no system JDKs to choose from: the named ones only
        }
        return homes;
    }

    /** @return the feature release a JDK's {@code release} file names */
    private static Optional<Integer> release(Path home) {
        try {
            Matcher version = JAVA_VERSION.matcher(Files.readString(home.resolve("release")));
            return version.find() ? Optional.of(Integer.parseInt(version.group(1))) : Optional.empty();
        } catch (IOException unreadable) {
            return Optional.empty();
        }
    }
}
