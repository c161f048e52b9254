package io.locked.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The lock's own log of one key's rows (acquisitions and releases at FINE, with tokens), kept while a test runs,
 * for its failure message: a failure that comes once in many runs then shows which holds of which rows came
 * and went, in order.
 */
public final class LockLogCapture implements AutoCloseable {
    private final Logger logger = Logger.getLogger("io.locked");
    private final Level levelBefore = logger.getLevel();
    private final List<String> lines = new ArrayList<>();
    private final Handler handler;

    private LockLogCapture(String key) {
        handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                String message = record.getMessage();
                if (message != null && message.contains(key)) {
                    synchronized (lines) {
                        lines.add(System.nanoTime() + " " + Thread.currentThread().getName() + " " + record.getLevel()
                                + " " + message);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        handler.setLevel(Level.FINE);
        logger.addHandler(handler);
        logger.setLevel(Level.FINE);
    }

    /** @param key what the lines kept name (a key names its rows too) */
    public static LockLogCapture of(String key) {
        return new LockLogCapture(key);
    }

    /** @return the lines kept so far, one per line, each with its {@code System.nanoTime()} and thread */
    public String lines() {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(levelBefore);
    }
}
