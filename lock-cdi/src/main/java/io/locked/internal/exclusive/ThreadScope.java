package io.locked.internal.exclusive;

import java.util.ArrayList;
import java.util.List;

/**
 * The acquisitions one thread is inside of, innermost last: where reentrancy looks. An acquisition
 * leaves it when its last handle in scope is closed or handed over, possibly from another thread,
 * hence the lock; it is uncontended in practice.
 */
public final class ThreadScope {
    private final List<Acquisition> entered = new ArrayList<>(2);

    public synchronized Acquisition find(String key) {
        for (int i = entered.size() - 1; i >= 0; i--) {
            Acquisition acquisition = entered.get(i);
            if (acquisition.key.equals(key)) {
                return acquisition;
            }
        }
        return null;
    }

    /** @return the innermost acquisition of any of the lock key's holders (its exclusive lock, a permit, a writer) */
    public synchronized Acquisition findLockKey(String lockKey) {
        for (int i = entered.size() - 1; i >= 0; i--) {
            Acquisition acquisition = entered.get(i);
            if (acquisition.place.key().equals(lockKey)) {
                return acquisition;
            }
        }
        return null;
    }

    public synchronized Acquisition innermost() {
        return entered.isEmpty() ? null : entered.get(entered.size() - 1);
    }

    public synchronized void enter(Acquisition acquisition) {
        entered.add(acquisition);
    }

    public synchronized void leave(String key, Acquisition acquisition) {
        for (int i = entered.size() - 1; i >= 0; i--) {
            if (entered.get(i) == acquisition) {
                entered.remove(i);
                return;
            }
        }
    }
}
