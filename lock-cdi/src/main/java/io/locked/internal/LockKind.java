package io.locked.internal;

import java.util.Locale;

/** What a held lock admits beside it, as metrics tag it ({@code type}): nobody, or other permit holders. */
public enum LockKind {
    /** The key's exclusive lock. */
    EXCLUSIVE,
    /** One of the key's permits ({@link io.locked.api.LockRequest#permits()}). */
    PERMIT;

    /** @return the tag's value: {@code exclusive}, {@code permit} */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
