package io.locked.api;

/**
 * The lock was lost while held: its lease ran out or was taken over, or its transaction ended.
 * Work done under it may have overlapped with another holder; fencing tokens let the protected
 * resource refuse the late writes.
 */
public class LockLostException extends LockException {
    private static final long serialVersionUID = 1L;

    /**
     * @param key    the lock key
     * @param token  the token of the lost acquisition
     * @param reason why it is known to be lost
     */
    public LockLostException(String key, long token, String reason) {
        super(key, "Lock " + named(key) + " (token " + token + ") was lost while held: " + reason, null);
    }
}
