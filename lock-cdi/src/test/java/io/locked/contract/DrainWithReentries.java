package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerClosedException;
import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The end of a randomized run, for one manager built with a drain ({@code drainOnClose}): threads of its own
 * are inside a lock when it is closed, and once it refuses new acquisitions each enters its own key again (an
 * exclusive lock in each mode, a read inside a read, a write inside a write). The drain exists to let holders
 * finish, and finishing may enter the held key again: each re-entry must be granted, with the hold's token,
 * while a new acquisition, of another thread or another key, is refused; and close returns once they left.
 */
final class DrainWithReentries {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final long PATIENCE_SECONDS = 30;
    private final RandomizedHistory run;
    private final ReadWriteKeys readWrite;

    /** One holder inside the manager when it closes: its request, entered twice, and how to record it. */
    private record Entry(String holder, LockRequest request, boolean readWrite, boolean writer) {
    }

    DrainWithReentries(RandomizedHistory run, ReadWriteKeys readWrite) {
        this.run = run;
        this.readWrite = readWrite;
    }

    /**
     * Closes the manager while its holders are inside, lets them enter again, and checks what it granted.
     *
     * @param process the manager's name in the history
     * @param locks   the manager, closed when this returns
     * @param keys    the run's exclusive keys, two at least
     * @param rwMode  the mode of the read and the write
     */
    void closeWhileHeld(String process, LockManager locks, List<String> keys, LockMode rwMode) throws InterruptedException {
        List<Entry> entries = new ArrayList<>();
        entries.add(new Entry(process + "/drainP", LockRequest.of(keys.get(0)).mode(LockMode.PESSIMISTIC).maxWait(WAIT), false, false));
        entries.add(new Entry(process + "/drainO", LockRequest.of(keys.get(1)).mode(LockMode.OPTIMISTIC).maxWait(WAIT), false, false));
        if (!readWrite.isEmpty()) {
            List<String> rw = readWrite.keys();
            entries.add(new Entry(process + "/drain-read", LockRequest.of(rw.get(0)).mode(rwMode).maxWait(WAIT).read(), true, false));
            entries.add(new Entry(process + "/drain-write", LockRequest.of(rw.get(1 % rw.size())).mode(rwMode).maxWait(WAIT).write(),
                    true, true));
        }
        CountDownLatch inside = new CountDownLatch(entries.size());
        CountDownLatch closing = new CountDownLatch(1);
        List<Thread> holders = new ArrayList<>();
        for (Entry entry : entries) {
            Thread holder = new Thread(() -> enterTwice(locks, entry, inside, closing), "random-" + entry.holder());
            holder.setDaemon(true);
            holder.start();
            holders.add(holder);
        }
        if (!inside.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
            run.problem(process + ": the drain's holders did not all get in within " + PATIENCE_SECONDS + " s");
        }
        Thread closer = new Thread(locks::close, "random-" + process + "-close");
        closer.setDaemon(true);
        closer.start();
        if (awaitRefusal(process, locks)) {
            refusesAnotherThread(process, locks, entries.get(0).request());
        }
        closing.countDown();
        for (Thread holder : holders) {
            holder.join(TimeUnit.SECONDS.toMillis(PATIENCE_SECONDS));
        }
        closer.join(TimeUnit.SECONDS.toMillis(PATIENCE_SECONDS));
        if (closer.isAlive()) {
            run.problem(process + ": close did not return within " + PATIENCE_SECONDS + " s of its holders' release");
        }
    }

    private void enterTwice(LockManager locks, Entry entry, CountDownLatch inside, CountDownLatch closing) {
        String key = entry.request().key();
        LockHandle outer;
        try {
            outer = locks.acquire(entry.request());
        } catch (LockException failed) {
            run.problem(entry.holder() + ": the drain's holder did not get '" + key + "' after the run: " + failed);
            inside.countDown();
            return;
        }
        long enter = System.nanoTime();
        inside.countDown();
        try {
            closing.await(PATIENCE_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        reenter(locks, entry, outer);
        long exit = System.nanoTime();
        boolean told = !outer.isValid();
        try {
            outer.close();
        } catch (LockLostException lost) {
            run.told(key, outer.token(), lost.getMessage());
            told = true;
        } catch (LockException failed) {
            run.problem(entry.holder() + ": closing '" + key + "' in the drain threw " + failed);
        }
        String mode = outer.mode() == LockMode.PESSIMISTIC ? "P" : "O";
        CriticalSection section = new CriticalSection(entry.holder() + "#" + mode, outer.token(), enter, exit, told);
        if (entry.readWrite()) {
            readWrite.record(key, outer, entry.writer(), section);
        } else {
            run.record(key, section, false);
        }
    }

    private void reenter(LockManager locks, Entry entry, LockHandle outer) {
        LockRequest again = entry.request().maxWait(Duration.ZERO);
        try (LockHandle inner = locks.acquire(again)) {
            if (inner.token() != outer.token() && outer.isValid()) {
                run.problem(entry.holder() + ": a re-entry of '" + again.key() + "' in the drain got token " + inner.token()
                        + ", not the hold's " + outer.token());
            }
        } catch (LockManagerClosedException refused) {
            if (outer.isValid()) {
                run.problem(entry.holder() + ": the closing manager refused a re-entry of its valid hold of '" + again.key()
                        + "': " + refused);
            }
        } catch (LockException failed) {
            if (outer.isValid()) {
                run.problem(entry.holder() + ": a re-entry of '" + again.key() + "' in the drain threw " + failed);
            }
        }
    }

    /** @return once the closing manager refuses a new acquisition of a key of no one's: true; false if it never did */
    private boolean awaitRefusal(String process, LockManager locks) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PATIENCE_SECONDS);
        String probe = "random:drain-probe:" + UUID.randomUUID();
        while (true) {
            Optional<LockHandle> granted;
            try {
                granted = locks.tryAcquire(LockRequest.of(probe).mode(LockMode.OPTIMISTIC));
            } catch (LockManagerClosedException refused) {
                return true;
            } catch (LockException failed) {
                run.problem(process + ": a new acquisition of a closing manager threw " + failed);
                return false;
            }
            granted.ifPresent(LockHandle::close); // close has not begun yet
            if (System.nanoTime() - deadline > 0) {
                run.problem(process + ": the closing manager kept granting new acquisitions");
                return false;
            }
            Thread.sleep(1); // polling for close to have begun
        }
    }

    /** A key one of the drain's holders holds is refused to this thread, which does not hold it: no wait, no grant. */
    private void refusesAnotherThread(String process, LockManager locks, LockRequest held) {
        try {
            Optional<LockHandle> granted = locks.tryAcquire(held.maxWait(Duration.ZERO));
            granted.ifPresent(LockHandle::close);
            run.problem(process + ": the closing manager answered a new acquisition of '" + held.key() + "' by another thread"
                    + " with " + (granted.isPresent() ? "a grant" : "\"busy\"") + ", not a refusal");
        } catch (LockManagerClosedException refused) {
            // refused, as every acquisition that is not a re-entry
        } catch (LockException failed) {
            run.problem(process + ": a new acquisition of '" + held.key() + "' by another thread threw " + failed);
        }
    }
}
