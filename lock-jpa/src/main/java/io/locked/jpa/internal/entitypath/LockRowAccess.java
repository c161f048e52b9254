package io.locked.jpa.internal.entitypath;

import io.locked.jpa.LockRow;
import java.time.Instant;

/**
 * What the JPA path reads and writes of a {@link LockRow} beyond its getters: the entity is API,
 * and its changes are not. {@link LockRow} hands the one implementation over when its class is
 * initialised; each method does what the row's method of the same name does (see {@link LockRow}).
 */
public abstract class LockRowAccess {
    private static volatile LockRowAccess registered;

    /** Called once, by {@link LockRow}'s class initialisation. */
    public static void register(LockRowAccess access) {
        if (registered != null) {
            throw new IllegalStateException("LockRow's access is registered already");
        }
        registered = access;
    }

    static LockRowAccess rows() {
        if (registered == null) {
            try {
                Class.forName(LockRow.class.getName(), true, LockRow.class.getClassLoader());
            } catch (ClassNotFoundException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
        return registered;
    }

    /** @return a new key's row: free, never acquired, token 0 */
    public abstract LockRow newRow(String key);

    /** @return whether a live optimistic lease holds the key at that time of the database's clock */
    public abstract boolean leasedAt(LockRow row, Instant now);

    /**
     * @return whether the row is free, was not acquired since then, and its token is below the clock's
     *         {@code now} in microseconds: a cleanup may delete it
     */
    public abstract boolean idleSince(LockRow row, Instant idleSince, Instant now);

    /** Records an optimistic lease in the managed, row-locked entity. */
    public abstract void leasedTo(LockRow row, String owner, String holder, long token, Instant acquiredAt,
                                  Instant expiresAt);

    /** Records a pessimistic acquisition in the managed, row-locked entity. */
    public abstract void lockedBy(LockRow row, long token, Instant acquiredAt, String holder);

    /** Frees the managed, row-locked entity with a new token, as an operator's forced release does. */
    public abstract void forcedFreeWith(LockRow row, long token);
}
