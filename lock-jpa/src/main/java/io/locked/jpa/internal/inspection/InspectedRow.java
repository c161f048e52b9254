package io.locked.jpa.internal.inspection;

import io.locked.api.LockMode;
import io.locked.jpa.internal.dialect.HolderSession;
import io.locked.spi.LockRowState;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * One lock row as an inspection read it, with the session that row-locks it where PostgreSQL tells
 * (else nulls), and the state it shows.
 */
record InspectedRow(String key, String owner, String holder, long token, Long acquiredMicros, Long expiresMicros,
                    boolean leaseLive, Integer sessionPid, String sessionName, Long sessionSinceMicros) {

    /** @param rowLocked whether a transaction row-locks the row right now */
    LockRowState state(boolean rowLocked) {
        if (leaseLive) {
            return new LockRowState(key, LockMode.OPTIMISTIC, HolderSession.holderText(holder), token,
                    instant(acquiredMicros), instant(expiresMicros), owner, null);
        }
        if (sessionPid != null) {
            // PostgreSQL: held by the session whose transaction row-locks it; the row shows the last holder
            return publishedHold(key, sessionPid, sessionName, instant(sessionSinceMicros));
        }
        if (rowLocked) {
            return new LockRowState(key, LockMode.PESSIMISTIC, HolderSession.holderText(holder), token,
                    instant(acquiredMicros), null, null, HolderSession.sessionOf(holder));
        }
        return new LockRowState(key, null, HolderSession.holderText(holder), token, instant(acquiredMicros),
                null, null, null);
    }

    // "locked <token> <holder>", as the lock statement published it; another transaction (the JPA
    // path's, a cleanup's for an instant) shows the session only
    private static LockRowState publishedHold(String key, int pid, String name, Instant since) {
        Long token = null;
        String holder = null;
        if (name != null && name.startsWith(HolderSession.PUBLISHED)) {
            String rest = name.substring(HolderSession.PUBLISHED.length());
            int space = rest.indexOf(' ');
            try {
                token = Long.parseLong(space < 0 ? rest : rest.substring(0, space));
                holder = space < 0 ? null : rest.substring(space + 1);
            } catch (NumberFormatException notOurs) {
                token = null;
            }
        }
        return new LockRowState(key, LockMode.PESSIMISTIC, holder, token, since, null, null, String.valueOf(pid));
    }

    private static Instant instant(Long micros) {
        return micros == null ? null : Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }
}
