package io.locked.eeapp;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A role's grants, losses and acts as the servers' logs have them (io.locked.eeapp.LeaderDuties), in
 * the order of the machine's monotonic clock, and what would show two leaders at once.
 */
public final class LeadershipHistory {
    private static final Pattern LINE = Pattern.compile(
            "LEADERSHIP (granted|lost|act) role=(\\S+) term=(\\d+) instance=(\\S+) nanos=(-?\\d+)(?: reason=(.*))?");
    private final List<Entry> entries;

    /** One line: a grant, a loss (with its reason) or an act, by an instance, at {@code nanos} of System.nanoTime(). */
    public record Entry(String kind, long term, String instance, long nanos, String reason) {
        boolean is(String what) {
            return kind.equals(what);
        }

        @Override
        public String toString() {
            return kind + " " + term + " on " + instance + " at " + nanos + (reason == null ? "" : " (" + reason + ")");
        }
    }

    private LeadershipHistory(List<Entry> entries) {
        this.entries = entries;
    }

    /** @return the role's history in the logs of these servers, stopped ones included */
    public static LeadershipHistory of(String role, List<? extends EeApplicationTests.Server> servers) {
        List<Entry> entries = new ArrayList<>();
        for (EeApplicationTests.Server server : servers) {
            Matcher line = LINE.matcher(server.log());
            while (line.find()) {
                if (line.group(2).equals(role)) {
                    String reason = line.group(6) == null ? null : line.group(6).strip();
                    entries.add(new Entry(line.group(1), Long.parseLong(line.group(3)), line.group(4),
                            Long.parseLong(line.group(5)), reason));
                }
            }
        }
        entries.sort(Comparator.comparingLong(Entry::nanos));
        return new LeadershipHistory(entries);
    }

    /** @return the terms granted and not lost since, by instance: the leaders now */
    public Map<String, Entry> openTerms() {
        Map<String, Entry> open = new HashMap<>();
        for (Entry entry : entries) {
            if (entry.is("granted")) {
                open.put(entry.instance(), entry);
            } else if (entry.is("lost")) {
                open.remove(entry.instance());
            }
        }
        return open;
    }

    public Optional<Entry> find(String kind, String instance, long term) {
        return entries.stream().filter(e -> e.is(kind) && e.instance().equals(instance) && e.term() == term).findFirst();
    }

    public long count(String kind, long term) {
        return entries.stream().filter(e -> e.is(kind) && e.term() == term).count();
    }

    /** @return the first grant on this instance of a term above {@code term} */
    public Optional<Entry> grantAfter(String instance, long term) {
        return entries.stream().filter(e -> e.is("granted") && e.instance().equals(instance) && e.term() > term).findFirst();
    }

    /**
     * What shows two leaders at once or a term that went back: a grant whose token is not above every
     * earlier grant's, an act on an instance that was not granted that term, or outside the term's grant
     * and loss there, and an act of a term after an act of a later term (acts of two terms interleaved).
     *
     * @return each violation, described; empty when there is none
     */
    public List<String> violations() {
        List<String> violations = new ArrayList<>();
        long lastGranted = Long.MIN_VALUE;
        long lastActed = Long.MIN_VALUE;
        Map<Long, Entry> granted = new HashMap<>();
        Map<Long, Entry> lost = new HashMap<>();
        for (Entry entry : entries) {
            switch (entry.kind()) {
                case "granted" -> {
                    if (entry.term() <= lastGranted) {
                        violations.add(entry + ": not above the earlier grant's term " + lastGranted);
                    }
                    lastGranted = Math.max(lastGranted, entry.term());
                    granted.put(entry.term(), entry);
                }
                case "lost" -> lost.put(entry.term(), entry);
                default -> {
                    Entry grant = granted.get(entry.term());
                    if (grant == null || !grant.instance().equals(entry.instance())) {
                        violations.add(entry + ": that term was not granted to " + entry.instance() + " before");
                    } else if (lost.containsKey(entry.term())) {
                        violations.add(entry + ": after the term was lost, " + lost.get(entry.term()));
                    }
                    if (entry.term() < lastActed) {
                        violations.add(entry + ": after an act of the later term " + lastActed);
                    }
                    lastActed = Math.max(lastActed, entry.term());
                }
            }
        }
        return violations;
    }

    /** @return the grants and losses, for a failure's message */
    @Override
    public String toString() {
        return entries.stream().filter(e -> !e.is("act")).toList().toString();
    }
}
