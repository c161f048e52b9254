package io.locked.jpa.internal.dialect;

import io.locked.jpa.LockDatabase;
import java.util.List;
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

    private Dialects() {
    }

    /** @return the dialect of a database family, null for null (a database without native statements) */
    static Dialect of(LockDatabase family) {
        if (family == null) {
            return null;
        }
        return ALL.stream().filter(dialect -> dialect.family() == family).findFirst()
                .orElseThrow(() -> new IllegalStateException("No dialect registered for " + family));
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
