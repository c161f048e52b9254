package io.locked.internal.base;

import io.locked.api.LockRequest;
import java.util.Locale;

/** What a held lock admits beside it, as metrics tag it ({@code type}). */
public enum LockKind {
    /** The key's exclusive lock. */
    EXCLUSIVE,
    /** One of the key's permits ({@link LockRequest#permits()}). */
    PERMIT,
    /** A reader of the key's read/write lock. */
    READ,
    /** The writer of the key's read/write lock. */
    WRITE;

    /** @return what the request asks for */
    public static LockKind of(LockRequest request) {
        return switch (request.type()) {
            case READ -> READ;
            case WRITE -> WRITE;
            case EXCLUSIVE -> request.permits() > 0 ? PERMIT : EXCLUSIVE;
        };
    }

    /** @return the tag's value: {@code exclusive}, {@code permit} */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
