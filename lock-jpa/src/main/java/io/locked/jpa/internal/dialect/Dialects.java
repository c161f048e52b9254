package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;

/**
 * The databases Locked has native statements for: one line each. A new database is one
 * {@link Dialect} file, its line here, its name in {@link LockDatabase} and its schema script
 * (docs/design.md, "Adding a database").
 */
public final class Dialects {
    /** In the order {@link #named} asks them. */
    private static final List<Dialect> ALL = List.of(
            new H2Dialect(),
            new PostgreSqlDialect(),
            new MariaDbDialect(),
            new MySqlDialect());

    /** Each family's dialect; a family without one fails here, when the first lock store starts. */
    private static final Map<LockDatabase, Dialect> BY_FAMILY = byFamily();

    private Dialects() {
    }

    private static Map<LockDatabase, Dialect> byFamily() {
        Map<LockDatabase, Dialect> dialects = new EnumMap<>(LockDatabase.class);
        ALL.forEach(dialect -> dialects.put(dialect.family(), dialect));
        for (LockDatabase family : LockDatabase.values()) {
            if (!dialects.containsKey(family)) {
                throw new IllegalStateException("No dialect registered for " + family);
            }
        }
        return dialects;
    }

    /** @return the dialect of a database family, null for null (a database without native statements) */
    public static Dialect of(LockDatabase family) {
        return family == null ? null : BY_FAMILY.get(family);
    }

    /**
     * @param text a URL, a provider's dialect name or a product name
     * @return the first dialect it names, null if none does; a dialect that tells the database apart
     *         only by the server's version ({@link Dialect#byServerVersion}) is asked for it after
     */
    public static Dialect named(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        return ALL.stream().filter(dialect -> dialect.namedIn(lower)).findFirst().orElse(null);
    }
}
