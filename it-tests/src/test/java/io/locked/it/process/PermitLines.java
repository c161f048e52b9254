package io.locked.it.process;

import io.locked.contract.CriticalSection;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The critical sections of a worker's permits, collected from its threads, and their line format:
 * the slot key then the section's own line ({@link CriticalSection#toLine()}). The slot key is
 * URL-encoded, since it holds U+001F and a line is split on spaces.
 */
final class PermitLines {
    private final List<PermitSection> sections = new ArrayList<>();

    /** @param permit one finished critical section and the slot it held */
    synchronized void record(PermitSection permit) {
        sections.add(permit);
    }

    /** @return a line per recorded section, in the order recorded */
    synchronized List<String> lines() {
        return sections.stream().map(PermitLines::toLine).toList();
    }

    static String toLine(PermitSection permit) {
        return encode(permit.slot()) + " " + permit.section().toLine();
    }

    static PermitSection parse(String line) {
        String[] slotAndSection = line.trim().split(" ", 2);
        return new PermitSection(decode(slotAndSection[0]), CriticalSection.parse(slotAndSection[1]));
    }

    /** @return the key as one word without spaces or control characters */
    static String encode(String key) {
        return URLEncoder.encode(key, StandardCharsets.UTF_8);
    }

    static String decode(String encoded) {
        return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
    }
}
