package io.locked.internal.definition;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Every config key Locked reads, in one place: the {@code @Locked} members that config overrides
 * (per method, per class, by default) and the global settings. A new member is one line in
 * {@link Member}, a new setting one line in {@link #GLOBAL}; the check for unknown keys and the
 * spellings config accepts follow from them.
 */
public final class LockedKeys {
    /** The prefix of every key. */
    public static final String PREFIX = "locked.";
    /** The prefix of the defaults for every method. */
    public static final String DEFAULT_PREFIX = PREFIX + "default.";
    /** The settings beside the members, including those the lock store (lock-jpa) reads. */
    public static final Set<String> GLOBAL = Set.of(
            "locked.persistence-unit", "locked.create-table", "locked.statements", "locked.tokens", "locked.connection-wait",
            "locked.galera.single-writer", "locked.postgresql.synchronous-commit", "locked.interceptor-priority",
            HealthSettings.TIMEOUT, HandOverSettings.ROW_RUN, HandOverSettings.LEASE_KEEP,
            CleanupSettings.EVERY, CleanupSettings.IDLE_AFTER, ShutdownSettings.DRAIN, LeadershipSettings.ROLES,
            LeadershipSettings.LEASE, TelemetrySettings.ENABLED, TelemetrySettings.KEY_ATTRIBUTE);

    private LockedKeys() {
    }

    /** The members of {@code @Locked} that config overrides. */
    public enum Member {
        MODE("mode"),
        MAX_WAIT("maxWait"),
        LEASE("lease"),
        HOLD_AT_LEAST("holdAtLeast"),
        LOCK_DELAY("lockDelay"),
        PERMITS("permits"),
        TYPE("type"),
        ON_TIMEOUT("onTimeout"),
        /** Config only: {@code false} runs the method without its lock. */
        ENABLED("enabled");

        private final String annotationName;
        private final String key;

        Member(String annotationName) {
            this(annotationName, kebab(annotationName));
        }

        Member(String annotationName, String key) {
            this.annotationName = annotationName;
            this.key = key;
        }

        /** @return the name as the annotation spells it, for messages: {@code maxWait} */
        public String annotationName() {
            return annotationName;
        }

        /** @return the config key: {@code max-wait}, {@code on-timeout} */
        public String key() {
            return key;
        }

        /** @return the spellings config accepts, the key first: {@code max-wait}, {@code maxWait} */
        public List<String> spellings() {
            Set<String> names = new LinkedHashSet<>(List.of(key, annotationName, kebab(annotationName)));
            return List.copyOf(names);
        }

        /** @return the member a config spelling names, or null */
        public static Member spelled(String name) {
            for (Member member : values()) {
                if (member.spellings().contains(name)) {
                    return member;
                }
            }
            return null;
        }
    }

    /**
     * @param names every config property name there is
     * @return one warning per {@code locked.*} key that Locked does not read, with the key it
     *         probably meant where one is close
     */
    public static List<String> unknown(Iterable<String> names) {
        List<String> warnings = new ArrayList<>();
        for (String name : names) {
            if (name.startsWith(PREFIX) && !known(name)) {
                String meant = closest(name);
                warnings.add("Locked does not read the config key " + name + (meant != null ? "; did you mean " + meant + "?"
                        : memberPart(name) != null ? "; its members are " + String.join(", ", memberKeys())
                        : "; docs/configuration.md lists the keys it reads"));
            }
        }
        return warnings;
    }

    private static boolean known(String name) {
        if (GLOBAL.contains(name)) {
            return true;
        }
        String member = memberPart(name);
        return member != null && Member.spelled(member) != null;
    }

    // the member's part of locked.default.<member>, locked."<class>".<member> or locked."<class>/<method>".<member>
    private static String memberPart(String name) {
        if (name.startsWith(DEFAULT_PREFIX)) {
            return name.substring(DEFAULT_PREFIX.length());
        }
        if (name.startsWith(PREFIX + "\"")) {
            int end = name.indexOf("\".", PREFIX.length() + 1);
            return end < 0 ? null : name.substring(end + 2);
        }
        return null;
    }

    /** @return the class or class/method part of locked."<class>".<member> or locked."<class>/<method>".<member>, or null */
    static String targetPart(String name) {
        if (!name.startsWith(PREFIX + "\"")) {
            return null;
        }
        int end = name.indexOf("\".", PREFIX.length() + 1);
        return end < 0 ? null : name.substring(PREFIX.length() + 1, end);
    }

    // the same name but for case, '-' and '_', else one a slip away: a letter too many, missing, wrong or, for the
    // longer names, two; a member's beginning names the member (hold: hold-at-least)
    private static String closest(String name) {
        String loose = loose(name);
        for (String global : GLOBAL) {
            if (loose(global).equals(loose) || NearestName.edits(loose(global), loose) <= slips(loose)) {
                return global;
            }
        }
        String member = memberPart(name);
        if (member == null || member.isEmpty()) {
            return null;
        }
        String start = name.substring(0, name.length() - member.length());
        String written = loose(member);
        for (Member candidate : Member.values()) {
            for (String spelling : candidate.spellings()) {
                if (loose(spelling).equals(written)) {
                    return start + candidate.key();
                }
            }
        }
        for (Member candidate : Member.values()) {
            String key = loose(candidate.key());
            if (written.length() >= 3 && key.startsWith(written) || NearestName.edits(written, key) <= slips(written)) {
                return start + candidate.key();
            }
        }
        return null;
    }

    private static int slips(String written) {
        return written.length() >= 6 ? 2 : 1;
    }

    private static String loose(String name) {
        return name.toLowerCase(Locale.ROOT).replace("-", "").replace("_", "");
    }

    private static List<String> memberKeys() {
        return List.of(Member.values()).stream().map(Member::key).toList();
    }

    static String kebab(String camel) {
        StringBuilder kebab = new StringBuilder();
        for (char c : camel.toCharArray()) {
            if (Character.isUpperCase(c)) {
                kebab.append('-').append(Character.toLowerCase(c));
            } else {
                kebab.append(c);
            }
        }
        return kebab.toString();
    }
}
