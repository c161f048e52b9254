package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a randomized run does and checks once its workers stopped, through a manager of no worker (the
 * operator's): nothing of its keys is held; each manager closes while threads of its own hold locks they enter
 * again ({@link DrainWithReentries}); nothing is held then either, and each key is free with a token above every
 * one recorded.
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
     * @param managers  the workers' managers, each built with a drain; closed when this returns
     * @param exclusive the sections of each exclusive key of the run
     * @param readWrite the read/write keys of the run
     */
    void closeAndCheck(List<LockManager> managers, Map<String, List<CriticalSection>> exclusive, ReadWriteKeys readWrite)
            throws InterruptedException {
        Set<String> leftHeld = stillHeld(readWrite.keys(), "after the workers stopped, their managers open");
        // a key left held keeps the drain's holders out: they would only wait for it
        DrainWithReentries drain = new DrainWithReentries(run, leftHeld.isEmpty() ? readWrite : ReadWriteKeys.NONE);
        List<String> keys = List.copyOf(exclusive.keySet());
        for (int m = 0; m < managers.size(); m++) {
            LockMode readWriteMode = readWrite.isEmpty() ? LockMode.OPTIMISTIC : readWrite.modes().get(m % readWrite.modes().size());
            drain.closeWhileHeld("m" + m, managers.get(m), keys, readWriteMode);
        }
        List<String> everyKey = new ArrayList<>(keys);
        readWrite.keys().stream().filter(key -> !leftHeld.contains(key)).forEach(everyKey::add);
        stillHeld(everyKey, "after the managers closed");
        freeWithHigherTokens(exclusive);
        if (leftHeld.isEmpty()) {
            readWrite.writeAfterTheRun(operator).forEach(run::problem);
        }
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
    private Set<String> stillHeld(List<String> keys, String when) throws InterruptedException {
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
    private void freeWithHigherTokens(Map<String, List<CriticalSection>> exclusive) {
        exclusive.forEach((key, sections) -> {
            long highest = sections.stream().mapToLong(CriticalSection::token).max().orElse(0);
            try (LockHandle after = operator.acquire(LockRequest.of(key).maxWait(Duration.ofSeconds(10)))) {
                if (after.token() <= highest) {
                    run.problem("'" + key + "' after the run: token " + after.token() + ", not above " + highest);
                }
            } catch (LockException failed) {
                run.problem("'" + key + "' is not free after the run: " + failed);
            }
        });
    }
}
