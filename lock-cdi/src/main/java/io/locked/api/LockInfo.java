package io.locked.api;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What the lock table says of one holder's place at the moment it was read, for operators: a key's
 * exclusive lock, the writer or one reader slot of its read/write lock, or one of its permits;
 * whether it is held, in which mode, by whom, since and until when, with which token. A snapshot: by
 * the time it is read the key may have been released or taken again. Returned by
 * {@link LockManager#inspect}, {@link LockManager#holders}, {@link LockManager#list} and
 * {@link LockManager#forceRelease}, and taken by {@link LockManager#forceRelease(LockInfo)} to end that
 * one holder.
 *
 * <p>Every time is the database's clock. A free place says when it was last acquired ({@code since})
 * and by whom, where the table still has it; {@code until} and {@code databaseSession} are then empty.
 * Locked makes these values; an application reads them and does not implement this interface.
 */
public interface LockInfo {

    /** @return the lock key, as the request named it */
    String key();

    /** @return which of the key's holders this is */
    HolderKind kind();

    /**
     * @return the number of a {@link HolderKind#READER} slot (1 to {@link LockRequest#MAX_READERS}) or a
     *         {@link HolderKind#PERMIT} (1 to {@link LockRequest#MAX_PERMITS}); 0 for the others
     */
    int slot();

    /** @return whether it was held when it was read */
    boolean held();

    /** @return the mode it is held in; empty when it is free */
    Optional<LockMode> mode();

    /**
     * @return who holds it, as the acquiring JVM wrote it ({@code host/pid/thread at client time}); for a
     *         free place, the last holder; empty where the database cannot show it (a pessimistic holder
     *         on the JPA path). On PostgreSQL a pessimistic holder in another session is read from that
     *         session's {@code application_name}, so only its first 40 or so characters show
     */
    Optional<String> holder();

    /**
     * @return the holder's fencing token; for a free place the last one drawn; empty where the database
     *         cannot show it (a pessimistic holder on the JPA path)
     */
    OptionalLong token();

    /** @return when the holder acquired it; empty when not known */
    Optional<Instant> since();

    /**
     * @return when an optimistic lease runs out unless renewed; empty for a pessimistic hold (it lasts as
     *         long as its transaction) and for a free place
     */
    Optional<Instant> until();

    /**
     * @return the database session of a pessimistic holder (MariaDB/MySQL connection id, PostgreSQL
     *         backend pid, H2 session id), which {@link LockManager#forceRelease} ends; empty for optimistic
     *         and free places, and where not known
     */
    Optional<String> databaseSession();

    /** @return whether the holder is this JVM (its host and process id are the holder's) */
    boolean heldByThisJvm();
}
