package io.locked.payara;

import java.util.Arrays;
import java.util.List;

/**
 * The SEVERE records in which a server reports, when an application stops, a {@link ThreadLocal} the
 * application left on one of the server's threads (issue 40: Payara 7 found one of
 * {@code io.locked.internal.ThreadScope}). A record spans lines (a stack trace, or Payara's
 * {@code [[ ... ]]} message), and starts with a line that opens with a date, as Payara's own format
 * writes it, or with a level, as Java's simple format writes its second line.
 */
final class ThreadLocalLeaks {
    private static final String RECORD_START = "(?m)^(?=\\[\\d{4}-\\d\\d-\\d\\d|[A-Z][a-z]{2} \\d\\d?, \\d{4} |\\d{4}-\\d\\d-\\d\\d)";

    private ThreadLocalLeaks() {
    }

    /** @return the records of the log that report a leaked ThreadLocal of Locked's */
    static List<String> ofLocked(String log) {
        return Arrays.stream(log.split(RECORD_START))
                .filter(record -> record.contains("SEVERE") && record.contains("ThreadLocal") && record.contains("io.locked"))
                .toList();
    }
}
