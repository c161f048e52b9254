package io.locked.it.process;

import io.locked.internal.operations.IdleRowCleanup;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Turns the cleanup's log records into worker events: {@code CLEANUP ran DELETED} for a round this
 * JVM did, {@code CLEANUP skipped} for a round it left to the JVM holding the cleanup's lock.
 */
final class CleanupReport extends Handler {
    // held here: a logger only weakly referenced may be collected, and its level and handler with it
    private static final Logger CLEANUP = Logger.getLogger(IdleRowCleanup.LOGGER);

    private CleanupReport() {
    }

    static void install() {
        CLEANUP.setLevel(Level.FINE);
        CLEANUP.addHandler(new CleanupReport());
    }

    @Override
    public void publish(LogRecord record) {
        if (IdleRowCleanup.RAN.equals(record.getMessage())) {
            WorkerEvents.print("CLEANUP ran " + record.getParameters()[0]);
        } else if (IdleRowCleanup.SKIPPED.equals(record.getMessage())) {
            WorkerEvents.print("CLEANUP skipped");
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
}
