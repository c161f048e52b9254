package io.locked.spi;

import io.locked.api.LockMode;
import java.time.Instant;

/**
 * One key's row as a store read it for inspection: see {@link io.locked.api.LockInfo}, which the
 * core makes of it, for the meaning of each component.
 *
 * @param key             the lock key
 * @param mode            the mode it is held in, null when free
 * @param holder          the holder as written by the acquiring JVM, null if not known
 * @param token           the holder's token (free: the last one drawn), null if not known
 * @param since           when it was acquired, null if not known
 * @param until           when an optimistic lease ends, else null
 * @param owner           the acquisition id of an optimistic lease, else null; a forced release frees
 *                        the lease only if this owner still holds it
 * @param databaseSession the database session holding a pessimistic row lock, null if not known
 */
public record LockRowState(String key, LockMode mode, String holder, Long token, Instant since, Instant until,
                           String owner, String databaseSession) {

    /** @return whether the key is held */
    public boolean held() {
        return mode != null;
    }
}
