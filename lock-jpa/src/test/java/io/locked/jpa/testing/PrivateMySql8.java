package io.locked.jpa.testing;

import io.locked.jpa.testing.server.PrivateMySql;
import io.locked.jpa.testing.server.ServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The MySQL 8 server of {@link TestDatabase#MYSQL8}: one per test JVM, started at first use on a free
 * loopback port, its data under the module's {@code target/} (a directory per JVM, deleted when the
 * JVM ends), stopped by a shutdown hook.
 */
final class PrivateMySql8 {
    private static PrivateMySql server;
    /** Why the start failed: the next test is told the same, rather than waiting for a second start. */
    private static Throwable failure;

    private PrivateMySql8() {
    }

    /**
     * @return the running server
     * @throws AssertionError under CI=true if it cannot be started (elsewhere the test is aborted)
     */
    static synchronized PrivateMySql server() {
        if (server == null && failure != null) {
            if (failure instanceof Error error) {
                throw error;
            }
            throw (RuntimeException) failure;
        }
        if (server == null) {
            Path dir = Path.of("target", "mysql-8-servers", Long.toString(ProcessHandle.current().pid())).toAbsolutePath();
            try {
                ServerProcess.deleteTree(dir);
                Files.createDirectories(dir);
                PrivateMySql started = PrivateMySql.start(dir);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    started.close();
                    ServerProcess.deleteTree(dir);
                }, "mysql-8-stop"));
                server = started;
            } catch (IOException e) {
                failure = new UncheckedIOException("Cannot start the MySQL 8 server under " + dir, e);
                throw (UncheckedIOException) failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while starting the MySQL 8 server", e);
            } catch (RuntimeException | Error notStarted) {
                // an aborted assumption off CI, an AssertionError under CI=true
                failure = notStarted;
                throw notStarted;
            }
        }
        return server;
    }
}
