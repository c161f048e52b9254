package io.locked.api;

import java.time.Instant;

/**
 * What the lock table says of one key at the moment it was read, for operators: whether it is held,
 * in which mode, by whom, since and until when, with which token. A snapshot: by the time it is
 * read the key may have been released or taken again. Returned by {@link LockManager#inspect},
 * {@link LockManager#list} and {@link LockManager#forceRelease}.
 *
 * <p>Every time is the database's clock. A free key says when it was last acquired ({@code since})
 * and by whom, where the table still has it; {@code until} and {@code databaseSession} are then null.
 *
 * @param key             the lock key
 * @param mode            the mode the key is held in, null when it is free
 * @param holder          who holds it, as the acquiring JVM wrote it ({@code host/pid/thread at
 *                        client time}); for a free key, the last holder; null where the database
 *                        cannot show it (a pessimistic holder on the JPA path). On PostgreSQL a
 *                        pessimistic holder in another session is read from that session's
 *                        {@code application_name}, so only its first 40 or so characters show
 * @param token           the holder's fencing token; for a free key the last one drawn; null where
 *                        the database cannot show it (a pessimistic holder on the JPA path)
 * @param since           when the holder acquired it; null when not known
 * @param until           when an optimistic lease runs out unless renewed; null for a pessimistic
 *                        hold (it lasts as long as its transaction) and for a free key
 * @param databaseSession the database session of a pessimistic holder (MariaDB/MySQL connection id,
 *                        PostgreSQL backend pid, H2 session id), which {@link LockManager#forceRelease}
 *                        ends; null for optimistic and free keys, and where not known
 * @param heldByThisJvm   whether the holder is this JVM (its host and process id are the holder's)
 */
public record LockInfo(String key, LockMode mode, String holder, Long token, Instant since, Instant until,
                       String databaseSession, boolean heldByThisJvm) {

    /** @return whether the key was held when it was read */
    public boolean held() {
        return mode != null;
    }
}
