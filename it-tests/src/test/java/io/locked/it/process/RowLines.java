package io.locked.it.process;

import io.locked.contract.CriticalSection;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.contract.ReadWriteHistoryChecker.Access;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The critical sections a worker held on one row of its key each, collected from its threads as
 * lines, and the two line formats: a permit's is its slot key then the section's own line
 * ({@link CriticalSection#toLine()}); a read/write lock's section is {@code READ} or {@code WRITE}
 * (what the holder asked for), the row it held ({@code LockHandle.key()}: a reader slot or the writer
 * row) and the section's line. Row keys are URL-encoded, since they hold U+001F and a line is split
 * on spaces.
 */
final class RowLines {
    private static final String WRITE = "WRITE";
    private static final String READ = "READ";
    private final List<String> lines = new ArrayList<>();

    /** @param line one finished critical section, as {@code toLine} wrote it */
    synchronized void record(String line) {
        lines.add(line);
    }

    /** @return the recorded lines, in the order recorded */
    synchronized List<String> lines() {
        return new ArrayList<>(lines);
    }

    static String toLine(PermitSection permit) {
        return encode(permit.slot()) + " " + permit.section().toLine();
    }

    static PermitSection parsePermit(String line) {
        String[] slotAndSection = line.trim().split(" ", 2);
        return new PermitSection(decode(slotAndSection[0]), CriticalSection.parse(slotAndSection[1]));
    }

    static String toLine(Access access) {
        return (access.writer() ? WRITE : READ) + " " + encode(access.row()) + " " + access.section().toLine();
    }

    static Access parseAccess(String line) {
        String[] typeRowAndSection = line.trim().split(" ", 3);
        if (!WRITE.equals(typeRowAndSection[0]) && !READ.equals(typeRowAndSection[0])) {
            throw new IllegalArgumentException("expected READ or WRITE first, was " + line);
        }
        return new Access(WRITE.equals(typeRowAndSection[0]), decode(typeRowAndSection[1]),
                CriticalSection.parse(typeRowAndSection[2]));
    }

    /** @return the key as one word without spaces or control characters */
    static String encode(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    static String decode(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
