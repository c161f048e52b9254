package io.locked.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The README's demo, smaller: it must run as a process and find nothing oversold. */
class StockDemoTest {

    @Test
    void demoSellsOutWithoutOverselling() throws Exception {
        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), StockDemo.class.getName(), "2", "3", "40")
                .redirectErrorStream(true).start();
        String output = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(demo.waitFor(5, TimeUnit.MINUTES), "demo did not finish");
        System.out.println(output);
        assertEquals(0, demo.exitValue(), output);
        assertTrue(output.contains("| widget | PESSIMISTIC |    40 |   40 |    0 |        0 | yes"), output);
        assertTrue(output.contains("| gadget | OPTIMISTIC  |    40 |   40 |    0 |        0 | yes"), output);
        assertTrue(output.contains("OK: 0 oversold."), output);
    }
}
