package io.locked.jpa.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the randomized run writes beside a failed history: the lock's FINE records, only while it runs. */
class LockLogCaptureTest {
    private static final Logger STORE_LOG = Logger.getLogger("io.locked.jpa.internal.nativepath.SomeStoreClass");

    @TempDir
    Path dir;

    @Test
    void keepsTheLocksFineRecordsWithTheirCausesOnlyWhileItRuns() throws Exception {
        STORE_LOG.log(Level.FINE, "before the capture");
        Path written;
        try (LockLogCapture capture = LockLogCapture.start()) {
            STORE_LOG.log(Level.FINE, "a commit''s reply was lost for {0}", "key-1");
            STORE_LOG.log(Level.FINE, "the release failed", new IllegalStateException("outer",
                    new java.sql.SQLException("Communications link failure")));
            Logger.getLogger("org.hibernate").log(Level.WARNING, "not the lock's");
            written = capture.writeTo(dir.resolve("log.txt"));
        }
        STORE_LOG.log(Level.FINE, "after the capture");
        String log = Files.readString(written);
        assertTrue(log.contains("FINE") && log.contains("a commit's reply was lost for key-1"), log);
        assertTrue(log.contains("    java.sql.SQLException: Communications link failure"), log);
        assertTrue(!log.contains("before the capture") && !log.contains("after the capture") && !log.contains("not the lock's"), log);
        assertEquals(null, Logger.getLogger("io.locked").getLevel(), "the level was put back");
        assertEquals(List.of(), List.of(Logger.getLogger("io.locked").getHandlers()), "the handler was taken off");
    }
}
