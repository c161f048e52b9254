package io.locked.it.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Every counter write of a worker: the token it was made under, the value it read, and what
 * became of it. One line each: {@code token read outcome}.
 */
public final class CounterWrites {
    private final List<String> lines = new ArrayList<>();

    synchronized void record(long token, long read, WriteOutcome outcome) {
        lines.add(token + " " + read + " " + outcome);
    }

    synchronized void writeTo(Path file) throws IOException {
        Files.write(file, lines);
    }

    /**
     * One write read back from a file.
     *
     * @param token   the token it was made under
     * @param read    the counter value it read (-1 if the read failed)
     * @param outcome what became of it
     */
    public record Write(long token, long read, WriteOutcome outcome) {
        /** @return the write of one line of the file */
        public static Write parse(String line) {
            String[] parts = line.trim().split(" ");
            return new Write(Long.parseLong(parts[0]), Long.parseLong(parts[1]), WriteOutcome.valueOf(parts[2]));
        }
    }
}
