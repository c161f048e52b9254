package io.locked.jpa.internal.nativepath;

/**
 * Whether a pessimistic hold's commit landed, though its reply was lost: the key's committed token
 * is the hold's. Only that commit makes the hold's token the committed one; a session ended before
 * it rolls the token back, and a later holder's commit writes a later token (then the hold counts as
 * lost, which is the safe side).
 */
@FunctionalInterface
interface LandedCommits {
    /** @return whether the key's committed token is the given one; false where the read fails */
    boolean committed(String key, long token);
}
