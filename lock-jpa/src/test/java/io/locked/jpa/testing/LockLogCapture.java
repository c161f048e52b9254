package io.locked.jpa.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The lock's own log down to {@code FINE}, kept in memory while a test runs, for a failure to write
 * beside its history: a store's {@code FINE} records say what the database answered where the core
 * only tells a holder that it lost its lock (the connection ended, a commit's reply lost, a forced
 * release's check). Each record is stamped with {@link System#nanoTime()}, the histories' clock.
 * The console sees no more than before: its handler keeps its own level.
 */
public final class LockLogCapture implements AutoCloseable {
    /** The newest records are kept, at most this many: a long run's early ones are dropped first. */
    private static final int MOST_KEPT = 50_000;
    private static final Formatter MESSAGES = new SimpleFormatter();

    // held here: the logging framework keeps loggers only weakly, and a collected one forgets its level
    private final Logger logger = Logger.getLogger("io.locked");
    private final Level levelBefore = logger.getLevel();
    private final Deque<String> records = new ArrayDeque<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            StringBuilder line = new StringBuilder()
                    .append(System.nanoTime()).append(' ').append(record.getLevel()).append(' ')
                    .append(Thread.currentThread().getName()).append(' ').append(record.getLoggerName()).append(": ")
                    .append(MESSAGES.formatMessage(record));
            for (Throwable cause = record.getThrown(); cause != null; cause = cause.getCause()) {
                line.append("\n    ").append(cause);
            }
            synchronized (records) {
                if (records.size() == MOST_KEPT) {
                    records.removeFirst();
                }
                records.addLast(line.toString());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private LockLogCapture() {
        handler.setLevel(Level.FINE);
        logger.addHandler(handler);
        logger.setLevel(Level.FINE);
    }

    /** Starts keeping the lock's log; {@link #close()} stops it. */
    public static LockLogCapture start() {
        return new LockLogCapture();
    }

    /**
     * @return the file written: the records kept, one a line (a cause on lines of its own, indented)
     */
    public Path writeTo(Path file) throws IOException {
        synchronized (records) {
            Files.createDirectories(file.toAbsolutePath().getParent());
            return Files.write(file, records);
        }
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(levelBefore);
    }
}
