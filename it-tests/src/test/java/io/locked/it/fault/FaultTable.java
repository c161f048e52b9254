package io.locked.it.fault;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The faults table: one row per scenario and mode run in this JVM, printed after each test class
 * and written to {@code target/faults.md} (the last print holds every row of the run).
 */
final class FaultTable {
    private static final List<String> ROWS = new ArrayList<>();

    private FaultTable() {
    }

    static synchronized void add(FaultOutcome outcome) {
        ROWS.add(outcome.row());
        System.out.println("fault run: " + outcome);
    }

    static synchronized void print() throws IOException {
        StringBuilder table = new StringBuilder("| ").append(FaultOutcome.header()).append(" |\n|");
        table.append(" --- |".repeat(FaultOutcome.header().split("\\|").length)).append('\n');
        ROWS.forEach(row -> table.append("| ").append(row).append(" |\n"));
        System.out.println("\nFaults (load per scenario " + FaultSettings.fromSystemProperties().load().toSeconds() + "s):\n" + table);
        Path target = Path.of("target");
        if (Files.isDirectory(target)) {
            Files.writeString(target.resolve("faults.md"), table);
        }
    }
}
