package io.locked.contract;

import io.locked.api.LockInfo;

/**
 * One forced release by a randomized run's operator.
 *
 * @param key        the key
 * @param startNanos when the call began
 * @param endNanos   when it returned
 * @param ended      the hold it reports it ended, or null
 * @param outcome    what it answered: {@code ended}, {@code free}, {@code refused: ...}, or {@code unknown: ...} where
 *                   the call failed in a way that leaves open whether it ran (a reply lost after the statement)
 */
public record ForcedRelease(String key, long startNanos, long endNanos, LockInfo ended, String outcome) {
    /** @return whether it ended a hold it could name by its token */
    boolean endedToken() {
        return ended != null && ended.token().isPresent();
    }

    /** @return whether it ended the hold of this token of this key */
    public boolean ended(String endedKey, long token) {
        return endedToken() && key.equals(endedKey) && ended.token().getAsLong() == token;
    }

    /** @return whether it ended a session without knowing which hold that was */
    boolean endedUnnamed() {
        return ended != null && ended.token().isEmpty();
    }

    /** @return whether it failed without saying whether it ran: it may have ended whatever held its key */
    public boolean outcomeUnknown() {
        return outcome.startsWith("unknown");
    }

    /** @return one line of the history */
    String toLine() {
        return "forced " + key + ' ' + startNanos + ' ' + endNanos + ' ' + outcome + ' ' + (ended == null ? "" : ended);
    }
}
