package io.locked.internal.exclusive;

/**
 * The acquisitions one thread is inside of, innermost last: where reentrancy looks. An acquisition
 * leaves it when its last handle in scope is closed or handed over, possibly from another thread.
 * A view of the thread's entry in {@link ThreadScopes}; it holds no acquisitions itself.
 */
public final class ThreadScope {
    private final Thread owner;
    private final ThreadScopes scopes;

    ThreadScope(Thread owner, ThreadScopes scopes) {
        this.owner = owner;
        this.scopes = scopes;
    }

    public Acquisition find(String key) {
        ThreadScopes.Entered entered = scopes.of(owner);
        return entered == null ? null : entered.find(key);
    }

    /** @return the innermost acquisition of any of the lock key's holders (its exclusive lock, a permit, a writer) */
    public Acquisition findLockKey(String lockKey) {
        ThreadScopes.Entered entered = scopes.of(owner);
        return entered == null ? null : entered.findLockKey(lockKey);
    }

    public Acquisition innermost() {
        ThreadScopes.Entered entered = scopes.of(owner);
        return entered == null ? null : entered.innermost();
    }

    public void enter(Acquisition acquisition) {
        scopes.enter(owner, acquisition);
    }

    public void leave(Acquisition acquisition) {
        scopes.leave(owner, acquisition);
    }
}
