package io.locked.jpa.testing.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The private servers' ports: never in the kernel's ephemeral range, never handed out twice. */
class ServerPortsTest {

    @Test
    void portsAreDistinctAndBelowTheEphemeralRange() throws Exception {
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        int ephemeralStart = Files.isReadable(range)
                ? Integer.parseInt(Files.readAllLines(range).get(0).trim().split("\\s+")[0]) : 32_768;
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = ServerProcess.freePort();
            assertTrue(port < ephemeralStart, () -> port + " lies in the ephemeral range from " + ephemeralStart);
            ports.add(port);
        }
        assertEquals(50, ports.size(), "a port was handed out twice: " + ports);
    }
}
