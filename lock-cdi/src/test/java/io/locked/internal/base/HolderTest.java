package io.locked.internal.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** The holder text is written as it always was, though the last second's text is kept for the next. */
class HolderTest {

    @Test
    void writesTheClientTimeAsInstantDoesAtEveryPrecision() {
        String[] instants = {"2026-12-03T20:14:43Z", "2026-12-03T20:14:43.100Z", "2026-12-03T20:14:43.000100Z",
                "2026-12-03T20:14:43.000000100Z", "2026-12-03T20:14:43.123456789Z", "2026-12-03T20:14:44.999999999Z",
                "2026-12-03T20:14:44.001Z", "1970-01-01T00:00:00Z", "9999-12-31T23:59:59.5Z", "+10000-01-01T00:00:00Z",
                "1969-12-31T23:59:59.25Z", "2026-12-03T20:14:43.5Z"};
        for (String each : instants) {
            Instant at = Instant.parse(each);
            String text = Holder.describe(Clock.fixed(at, ZoneOffset.UTC));
            String prefix = ProcessHandle.current().pid() + "/" + Thread.currentThread().getName() + " at ";
            assertTrue(text.endsWith(prefix + at), text + " for " + at);
            assertTrue(Holder.isThisJvm(text), text);
        }
    }

    @Test
    void aRenamedThreadIsWrittenWithItsNewName() {
        Thread thread = Thread.currentThread();
        String before = thread.getName();
        Clock clock = Clock.fixed(Instant.parse("2026-12-03T20:14:43.250Z"), ZoneOffset.UTC);
        try {
            thread.setName("first-name");
            assertTrue(Holder.describe(clock).endsWith("/first-name at 2026-12-03T20:14:43.250Z"));
            thread.setName("second-name");
            assertTrue(Holder.describe(clock).endsWith("/second-name at 2026-12-03T20:14:43.250Z"));
        } finally {
            thread.setName(before);
        }
    }

    @Test
    void aLongThreadNameIsCutAt255Characters() {
        Thread thread = Thread.currentThread();
        String before = thread.getName();
        try {
            thread.setName("t".repeat(400));
            assertEquals(255, Holder.describe(Clock.systemUTC()).length());
        } finally {
            thread.setName(before);
        }
    }
}
