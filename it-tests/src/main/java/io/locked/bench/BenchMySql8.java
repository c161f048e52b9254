package io.locked.bench;

import io.locked.jpa.testing.server.PrivateMySql;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The benchmark's MySQL 8: the tests' private server ({@link PrivateMySql}, MySQL 8.0.15 from the
 * build's tarball, {@code locked.mysql8.tarball}), started at first use on a free loopback port,
 * its data under {@code target/} and deleted when the benchmark ends.
 */
final class BenchMySql8 {
    private static PrivateMySql server;

    private BenchMySql8() {
    }

    static synchronized PrivateMySql server() {
        if (server != null) {
            return server;
        }
        String tarball = System.getProperty("locked.mysql8.tarball", "");
        if (tarball.isEmpty() || !Files.isRegularFile(Path.of(tarball))) {
            // checked here because PrivateMySql reports it through JUnit, which the benchmark does not have
            throw new IllegalStateException("MYSQL8: no MySQL 8 build at '" + tarball + "' (run the benchmark through"
                    + " mvn -Pbench, which unpacks it; or leave MYSQL8 out with -Dbench.databases=...)");
        }
        Path dir = Path.of("target", "mysql-8-bench", Long.toString(ProcessHandle.current().pid())).toAbsolutePath();
        try {
            Files.createDirectories(dir);
            PrivateMySql started = PrivateMySql.start(dir);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                started.close();
                deleteTree(dir);
            }, "bench-mysql-8-stop"));
            server = started;
            return server;
        } catch (IOException e) {
            throw new UncheckedIOException("MYSQL8: cannot start the MySQL 8 server under " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("MYSQL8: interrupted while starting the MySQL 8 server", e);
        } catch (LinkageError reportedThroughJUnit) {
            // PrivateMySql reports a failed start through JUnit's Assumptions, which only the tests have
            throw new IllegalStateException("MYSQL8: the MySQL 8 server did not start; see the logs under " + dir,
                    reportedThroughJUnit);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException leftOver) {
            // mvn clean removes what is left
        }
    }
}
