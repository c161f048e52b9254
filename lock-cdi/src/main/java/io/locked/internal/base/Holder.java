package io.locked.internal.base;

import java.net.InetAddress;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Describes who holds a lock, for people reading the lock table: host, pid, thread, client time. */
public final class Holder {
    private static final String HOST_AND_PID = hostName() + "/" + ProcessHandle.current().pid();
    /** Instant.toString's seconds keep their digits from year 0 to 9999; outside, it adds a sign */
    private static final long LAST_FOUR_DIGIT_SECOND = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

    /**
     * The last second written, as Instant.toString writes it without its "Z", shared by every thread (no
     * thread-local: an application server's threads outlive the application): formatting the instant anew
     * was about 4 % of the library's own CPU in a lock cycle (a profile of 2026-12-03).
     */
    private static volatile Second last = new Second(Long.MIN_VALUE, "");

    private record Second(long epochSecond, String text) {
    }

    private Holder() {
    }

    /** @return "host/pid/thread at " and the client clock's instant as {@link Instant#toString()} writes it, at most 255 characters */
    public static String describe(Clock clientClock) {
        Instant now = clientClock.instant();
        String name = Thread.currentThread().getName();
        long second = now.getEpochSecond();
        if (second < 0 || second > LAST_FOUR_DIGIT_SECOND) {
            return capped(HOST_AND_PID + "/" + name + " at " + now);
        }
        Second written = last;
        if (written.epochSecond != second) {
            String whole = now.truncatedTo(ChronoUnit.SECONDS).toString(); // "2026-12-03T20:14:43Z"
            written = new Second(second, whole.substring(0, whole.length() - 1));
            last = written;
        }
        StringBuilder text = new StringBuilder(HOST_AND_PID.length() + name.length() + 36)
                .append(HOST_AND_PID).append('/').append(name).append(" at ").append(written.text);
        appendFraction(text, now.getNano());
        return capped(text.append('Z').toString());
    }

    /** As Instant.toString: no fraction for a whole second, else three, six or nine digits */
    private static void appendFraction(StringBuilder text, int nanos) {
        if (nanos == 0) {
            return;
        }
        int digits = nanos % 1_000_000 == 0 ? 3 : nanos % 1_000 == 0 ? 6 : 9;
        int value = digits == 3 ? nanos / 1_000_000 : digits == 6 ? nanos / 1_000 : nanos;
        String written = Integer.toString(value);
        text.append('.');
        for (int pad = written.length(); pad < digits; pad++) {
            text.append('0');
        }
        text.append(written);
    }

    private static String capped(String text) {
        return text.length() <= 255 ? text : text.substring(0, 255);
    }

    /** Whether a holder text was written by this JVM: its host and process id come first. */
    public static boolean isThisJvm(String holder) {
        return holder != null && holder.startsWith(HOST_AND_PID + "/");
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
