package io.locked.jpa.testing.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Hands out the ports the private servers listen on, so that no other socket can take one between
 * its choice and the server's bind.
 *
 * <p>A port the kernel picks for {@code new ServerSocket(0)} lies in its ephemeral range, the same
 * range it draws the local ports of outgoing connections from: a Galera node's group communication,
 * a state transfer or a JDBC connection could take the port before the server that was promised it
 * starts, and the server then fails with "Address already in use" (seen once in CI, on a joining
 * Galera node). The ports here lie below the ephemeral range, which the kernel never hands out by
 * itself. The test JVMs that run at once (surefire's forks, several modules) claim each port with a
 * file lock they hold until they exit, so two of them never pick the same one; the operating system
 * drops the locks of a JVM that ended, so nothing is left to clean up.
 */
final class ServerPorts {
    private static final Path CLAIMS = Path.of(System.getProperty("java.io.tmpdir"), "locked-test-ports");
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** Below the registered ports that loopback services here use (MariaDB 3306, PostgreSQL 5432, Redis 6379). */
    private static final int LOWEST = 10_000;
    /** Linux's default start of the ephemeral range, where the kernel does not say. */
    private static final int DEFAULT_EPHEMERAL_START = 32_768;
    private static final List<FileChannel> HELD = new ArrayList<>();

    private ServerPorts() {
    }

    /** @return a loopback port nobody listens on, claimed for this JVM until it exits */
    static synchronized int claim() throws IOException {
        int end = ephemeralStart();
        int span = end - LOWEST;
        int first = ThreadLocalRandom.current().nextInt(span);
        Files.createDirectories(CLAIMS);
        for (int i = 0; i < span; i++) {
            int port = LOWEST + (first + i) % span;
            FileChannel claim = FileChannel.open(CLAIMS.resolve(port + ".lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            if (claimed(claim) && bindable(port)) {
                HELD.add(claim);
                return port;
            }
            claim.close();
        }
        throw new IOException("no free port between " + LOWEST + " and " + end + " that no other test JVM claimed");
    }

    private static boolean claimed(FileChannel claim) throws IOException {
        try {
            FileLock lock = claim.tryLock();
            return lock != null;
        } catch (OverlappingFileLockException heldByThisJvm) {
            return false;
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException inUse) {
            return false;
        }
    }

    private static int ephemeralStart() {
        try {
            // readString reads a /proc file as one byte long (its size is 0): read its lines
            String[] range = Files.readAllLines(EPHEMERAL_RANGE).get(0).trim().split("\\s+");
            return Math.max(LOWEST + 1_000, Integer.parseInt(range[0]));
        } catch (IOException | RuntimeException notLinux) {
            return DEFAULT_EPHEMERAL_START;
        }
    }
}
