package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a randomized run checks of its keys once its workers stopped, through a manager of no worker (the
 * operator's): nothing of them is held, and each is free with a token above every one recorded.
 */
final class EndOfRun {
    /**
     * How long a release may take to show in the table: a release in flight on another thread, the last reader's
     * kept slot (2 ms) and a minimum hold (under a second) all end far sooner.
     */
    private static final Duration RELEASE_PATIENCE = Duration.ofSeconds(5);
    private final RandomizedHistory run;
    private final LockManager operator;

    EndOfRun(RandomizedHistory run, LockManager operator) {
        this.run = run;
        this.operator = operator;
    }

    /**
     * Nothing of these keys is held ({@link LockManager#holders}): every release reached the store, and no group
     * of readers was forgotten, its slot (and a {@code PESSIMISTIC} one's connection) kept for as long as its
     * manager lives, or longer. Polled within {@link #RELEASE_PATIENCE}.
     *
     * @param keys the keys to look at
     * @param when when this is checked, for the problem's text
     * @return the keys still held, each a problem of the run
     */
    Set<String> stillHeld(List<String> keys, String when) throws InterruptedException {
        long deadline = System.nanoTime() + RELEASE_PATIENCE.toNanos();
        List<LockInfo> held = holders(keys);
        while (!held.isEmpty() && System.nanoTime() - deadline < 0) {
            Thread.sleep(10); // polling for releases in flight
            held = holders(keys);
        }
        Set<String> heldKeys = new LinkedHashSet<>();
        for (LockInfo info : held) {
            run.problem(when + ", still held after " + RELEASE_PATIENCE.toSeconds() + " s: " + info.toString().replace('\u001F', '#'));
            keys.stream().filter(key -> info.key().startsWith(key)).forEach(heldKeys::add);
        }
        return heldKeys;
    }

    private List<LockInfo> holders(List<String> keys) {
        return keys.stream().flatMap(key -> operator.holders(key).stream()).toList();
    }

    /** Every exclusive key is free, and its next token is higher than any recorded. */
    void freeWithHigherTokens(Map<String, List<CriticalSection>> exclusive) {
        exclusive.forEach((key, sections) -> {
            long highest = sections.stream().mapToLong(CriticalSection::token).max().orElse(0);
            try (LockHandle after = operator.acquire(LockRequest.of(key).waitFor(Duration.ofSeconds(10)))) {
                if (after.token() <= highest) {
                    run.problem("'" + key + "' after the run: token " + after.token() + ", not above " + highest);
                }
            } catch (LockException failed) {
                run.problem("'" + key + "' is not free after the run: " + failed);
            }
        });
    }
}
