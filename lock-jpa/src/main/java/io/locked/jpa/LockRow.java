package io.locked.jpa;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Version;
import io.locked.jpa.internal.entitypath.LockRowAccess;
import java.time.Instant;

/**
 * One lock: a row per key. Add this class to the persistence unit that holds the lock table.
 * Times are written by the database from its own clock, never bound from the JVM. Applications
 * read it; only Locked changes it.
 */
@Entity
@Table(name = LockRow.TABLE)
public class LockRow {
    /** The lock table's name. */
    public static final String TABLE = "locked_lock";

    @Id
    @Column(name = "lock_key", length = 255, nullable = false)
    private String key;

    @Version
    @Column(name = "version", nullable = false)
    private long version;

    @Column(name = "token", nullable = false)
    private long token;

    @Column(name = "owner", length = 36)
    private String owner;

    @Column(name = "acquired_at")
    private Instant acquiredAt;

    @Column(name = "expires_at")
    private Instant expiresAt;

    @Column(name = "holder", length = 255)
    private String holder;

    static {
        // the JPA path changes rows through this, and nothing else can
        LockRowAccess.register(new LockRowAccess() {
            @Override
            public LockRow newRow(String key) {
                return new LockRow(key);
            }

            @Override
            public boolean leasedAt(LockRow row, Instant now) {
                return row.leasedAt(now);
            }

            @Override
            public boolean idleSince(LockRow row, Instant idleSince, Instant now) {
                return row.idleSince(idleSince, now);
            }

            @Override
            public void leasedTo(LockRow row, String owner, String holder, long token, Instant acquiredAt,
                                 Instant expiresAt) {
                row.leasedTo(owner, holder, token, acquiredAt, expiresAt);
            }

            @Override
            public void lockedBy(LockRow row, long token, Instant acquiredAt, String holder) {
                row.lockedBy(token, acquiredAt, holder);
            }

            @Override
            public void forcedFreeWith(LockRow row, long token) {
                row.forcedFreeWith(token);
            }
        });
    }

    /** For JPA. */
    protected LockRow() {
    }

    /** A new key's row: free, never acquired, token 0. */
    LockRow(String key) {
        this.key = key;
    }

    /** @return whether a live optimistic lease holds the key at that time of the database's clock */
    boolean leasedAt(Instant now) {
        return owner != null && expiresAt != null && expiresAt.isAfter(now);
    }

    /**
     * @param idleSince a time of the database's clock
     * @return whether the row is free and was not acquired since then: a cleanup may delete it
     */
    boolean idleSince(Instant idleSince, Instant now) {
        // a row created but never acquired has no acquired_at yet
        boolean notAcquiredSince = acquiredAt == null || acquiredAt.isBefore(idleSince);
        boolean free = owner == null || (expiresAt != null && expiresAt.isBefore(idleSince));
        // a token the clock has not passed (it stepped back) would come again from the clock once the row is gone
        boolean passedByTheClock = token < now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
        return notAcquiredSince && free && passedByTheClock;
    }

    /**
     * Records an optimistic lease in the managed, row-locked entity; the provider bumps the version
     * when it writes it.
     */
    void leasedTo(String owner, String holder, long token, Instant acquiredAt, Instant expiresAt) {
        this.owner = owner;
        this.holder = holder;
        this.token = token;
        this.acquiredAt = acquiredAt;
        this.expiresAt = expiresAt;
    }

    /**
     * Records a pessimistic acquisition in the managed, row-locked entity; the provider bumps the
     * version when it writes it. An expired lease's owner stays, as the native statements leave it.
     */
    void lockedBy(long token, Instant acquiredAt, String holder) {
        this.token = token;
        this.acquiredAt = acquiredAt;
        this.holder = holder;
    }

    /**
     * Frees the managed, row-locked entity with a new token, as an operator's forced release does:
     * the old holder's owner and token no longer match; the provider bumps the version.
     */
    void forcedFreeWith(long token) {
        this.owner = null;
        this.expiresAt = null;
        this.token = token;
    }

    /** @return the lock key */
    public String getKey() {
        return key;
    }

    /** @return the row version, bumped by every write */
    public long getVersion() {
        return version;
    }

    /** @return the last fencing token drawn for this key */
    public long getToken() {
        return token;
    }

    /** @return the id of the acquisition holding the optimistic lease, or null when free */
    public String getOwner() {
        return owner;
    }

    /** @return when the key was last acquired, on the database's clock */
    public Instant getAcquiredAt() {
        return acquiredAt;
    }

    /** @return when the optimistic lease runs out, on the database's clock; null when free */
    public Instant getExpiresAt() {
        return expiresAt;
    }

    /** @return host, pid, thread and client time of the last acquirer, for diagnostics */
    public String getHolder() {
        return holder;
    }
}
