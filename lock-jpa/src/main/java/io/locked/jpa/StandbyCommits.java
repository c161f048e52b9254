package io.locked.jpa;

import java.util.Locale;

/**
 * On PostgreSQL, how long the lock's writes that must survive a crash or failover wait at their
 * commit: {@code locked.postgresql.synchronous-commit} in configuration,
 * {@link JpaLockRepository.Builder#postgresqlSynchronousCommit(StandbyCommits)} in code. Each is a
 * level of PostgreSQL's {@code synchronous_commit} at which a commit waits for the synchronous
 * standbys that {@code synchronous_standby_names} names; Locked sets it for its own transaction
 * alone, so the application's commits keep their own setting (for example {@code local}). Unset,
 * the lock's commits follow the session's setting.
 */
public enum StandbyCommits {
    /** {@code on}: until the standbys have written the commit to their disk. */
    ON,
    /** {@code remote_write}: until the standbys have handed it to their operating system. */
    REMOTE_WRITE,
    /** {@code remote_apply}: until the standbys have applied it, so that queries there see it. */
    REMOTE_APPLY;

    /** The configuration key. */
    public static final String KEY = "locked.postgresql.synchronous-commit";

    /** @return the level as PostgreSQL spells it */
    public String level() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param value a configured value of {@link #KEY}, in any case
     * @return the constant
     * @throws IllegalArgumentException naming the key and the values allowed
     */
    public static StandbyCommits parse(String value) {
        for (StandbyCommits level : values()) {
            if (level.level().equalsIgnoreCase(value.trim())) {
                return level;
            }
        }
        throw new IllegalArgumentException(KEY + " must be on, remote_write or remote_apply (the levels at which a"
                + " commit waits for a synchronous standby), was '" + value + "'");
    }
}
