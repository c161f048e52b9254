package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The operator of a randomized run: forces the release of a random key of the run every few hundred
 * milliseconds, on a manager of its own, and keeps what each call answered.
 */
final class Operator {
    private final LockManager locks;
    private final List<String> keys;
    private final Random random;
    private final RandomizedHistory run;
    private final List<ForcedRelease> releases = new CopyOnWriteArrayList<>();

    Operator(LockManager locks, List<String> keys, long seed, RandomizedHistory run) {
        this.locks = locks;
        this.keys = keys;
        this.random = new Random(seed);
        this.run = run;
    }

    List<ForcedRelease> releases() {
        return releases;
    }

    void forceReleasesUntil(long deadlineNanos) {
        while (System.nanoTime() - deadlineNanos < 0) {
            try {
                Thread.sleep(100 + random.nextInt(250)); // the operator's pace, not a wait for a condition
            } catch (InterruptedException interrupted) {
                return;
            }
            forceRelease(keys.get(random.nextInt(keys.size())));
        }
    }

    private void forceRelease(String key) {
        long start = System.nanoTime();
        try {
            Optional<LockInfo> ended = locks.forceRelease(key);
            releases.add(new ForcedRelease(key, start, System.nanoTime(), ended.orElse(null),
                    ended.isPresent() ? "ended" : "free"));
        } catch (IllegalStateException refused) {
            // the JPA path cannot end a pessimistic holder's session; the native one refuses a row
            // that a transaction other than a published holder's locks at that instant
            releases.add(new ForcedRelease(key, start, System.nanoTime(), null, "refused: " + refused.getMessage()));
            if (!refused.getMessage().contains(key)) {
                run.problem("forceRelease('" + key + "') refused without naming the key: " + refused);
            }
        } catch (LockException failed) {
            run.problem("forceRelease('" + key + "') threw " + failed);
        }
    }
}
