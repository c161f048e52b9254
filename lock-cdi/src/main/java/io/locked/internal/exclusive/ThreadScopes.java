package io.locked.internal.exclusive;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The acquisitions each thread is inside of, one manager's. Kept in the manager, keyed by thread, not in a
 * {@code ThreadLocal}: a thread-local value of Locked's would stay on a server's pooled thread after the
 * application is gone and keep its class loader alive. A thread's entry goes when its last acquisition
 * leaves, from whichever thread closes it; a thread outside every lock has none.
 */
public final class ThreadScopes {
    private final ConcurrentHashMap<Thread, Entered> entered = new ConcurrentHashMap<>();

    /** @return the scope of the calling thread */
    public ThreadScope ofCurrentThread() {
        return new ThreadScope(Thread.currentThread(), this);
    }

    /** @return how many threads are inside an acquisition now */
    public int threadsInside() {
        return entered.size();
    }

    Entered of(Thread thread) {
        return entered.get(thread);
    }

    void enter(Thread thread, Acquisition acquisition) {
        entered.compute(thread, (owner, stack) -> {
            Entered into = stack == null ? new Entered() : stack;
            into.add(acquisition);
            return into;
        });
    }

    void leave(Thread thread, Acquisition acquisition) {
        entered.computeIfPresent(thread, (owner, stack) -> stack.remove(acquisition) ? null : stack);
    }

    /**
     * One thread's acquisitions, innermost last. Its owner reads it while another thread may close one of
     * them, hence the lock; it is uncontended in practice.
     */
    static final class Entered {
        private final List<Acquisition> acquisitions = new ArrayList<>(2);

        synchronized Acquisition find(String key) {
            for (int i = acquisitions.size() - 1; i >= 0; i--) {
                Acquisition acquisition = acquisitions.get(i);
                if (acquisition.key.equals(key)) {
                    return acquisition;
                }
            }
            return null;
        }

        synchronized Acquisition findLockKey(String lockKey) {
            for (int i = acquisitions.size() - 1; i >= 0; i--) {
                Acquisition acquisition = acquisitions.get(i);
                if (acquisition.place.key().equals(lockKey)) {
                    return acquisition;
                }
            }
            return null;
        }

        synchronized Acquisition innermost() {
            return acquisitions.isEmpty() ? null : acquisitions.get(acquisitions.size() - 1);
        }

        synchronized void add(Acquisition acquisition) {
            acquisitions.add(acquisition);
        }

        /** @return whether none is left */
        synchronized boolean remove(Acquisition acquisition) {
            for (int i = acquisitions.size() - 1; i >= 0; i--) {
                if (acquisitions.get(i) == acquisition) {
                    acquisitions.remove(i);
                    break;
                }
            }
            return acquisitions.isEmpty();
        }
    }
}
