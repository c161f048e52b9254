package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * One thread of a {@link RandomizedHistory}: until its deadline, it takes one of the keys in a mode,
 * with a wait and a lease drawn from its own seeded {@link Random}, and leaves the lock one of four
 * ways: plainly, after a reentrant entry, through {@code callLocked}, or by handing the handle to
 * another thread that closes it; now and then it asks for a minimum hold or a lock-delay instead
 * ({@link TimedAcquisitions}). Every critical section goes to the history with whether the holder
 * was told of a loss; anything the API must not do goes to the run's problems.
 */
final class RandomWorker {
    private static final List<Duration> WAITS = List.of(Duration.ZERO, Duration.ofMillis(150), Duration.ofMillis(1500));
    /** How long a hand-over's receiver may take to close, before the run counts it as hung. */
    private static final long HAND_OVER_PATIENCE_SECONDS = 30;
    /** Marks the section of a hold that another thread closed, after the holder's name and mode. */
    static final String HANDED_OVER = ">handed";
    private final String name;
    private final LockManager locks;
    private final Random random;
    private final RandomizedHistory run;
    private final ExecutorService receivers;
    /** How often an operation of a worker uses a lock-delay: one in this many. */
    private static final int LOCK_DELAY_EVERY = 16;
    private final TimedAcquisitions timed;
    private Future<?> handedOver;

    RandomWorker(String name, LockManager locks, long seed, RandomizedHistory run, ExecutorService receivers) {
        this.name = name;
        this.locks = locks;
        this.random = new Random(seed);
        this.run = run;
        this.receivers = receivers;
        this.timed = new TimedAcquisitions(run, random, this::acquire);
    }

    void runUntil(long deadlineNanos, int maxOperations) throws Exception {
        for (int i = 0; i < maxOperations && System.nanoTime() - deadlineNanos < 0; i++) {
            once(i);
        }
        awaitHandOver();
    }

    private void once(int operation) throws Exception {
        String key = run.keys().get(random.nextInt(run.keys().size()));
        if (random.nextInt(run.minimumHoldEvery()) == 0) {
            timed.minimumHold(name + "#" + operation, key);
            return;
        }
        if (random.nextInt(LOCK_DELAY_EVERY) == 0) {
            timed.lockDelay(name + "#" + operation, key);
            return;
        }
        LockMode mode = random.nextBoolean() ? LockMode.PESSIMISTIC : LockMode.OPTIMISTIC;
        Duration wait = WAITS.get(random.nextInt(WAITS.size()));
        // now and then a lease short enough that the watchdog must renew it while held; and now and then one
        // as long as the lease plus lock-delay of others, to be handed over between the two kinds
        boolean shortLease = mode == LockMode.OPTIMISTIC && random.nextInt(8) == 0;
        boolean jobLease = !shortLease && random.nextInt(4) == 0;
        Duration lease = shortLease ? Duration.ofMillis(400 + random.nextInt(400))
                : jobLease ? TimedAcquisitions.JOB_LEASE : LockRequest.DEFAULT_LEASE;
        long holdMillis = shortLease ? lease.toMillis() * 6 / 5 : random.nextInt(12);
        LockRequest request = LockRequest.of(key).mode(mode).maxWait(wait).lease(lease);
        String holder = name + "#" + operation + (mode == LockMode.PESSIMISTIC ? "P" : "O");
        switch (random.nextInt(4)) {
            case 0 -> acquire(request).ifPresent(held -> leave(holder, key, System.nanoTime(), held, holdMillis, shortLease));
            case 1 -> acquire(request).ifPresent(held -> reenterThenLeave(holder, key, held, holdMillis, shortLease));
            case 2 -> callLocked(holder, request, holdMillis, shortLease);
            default -> acquire(request).ifPresent(held -> handOver(holder, key, held, holdMillis, shortLease));
        }
    }

    private Optional<LockHandle> acquire(LockRequest request) {
        long start = System.nanoTime();
        try {
            if (request.maxWait().isZero() && random.nextBoolean()) {
                return locks.tryAcquire(request);
            }
            return Optional.of(locks.acquire(request));
        } catch (LockNotAcquiredException notAcquired) {
            run.checkNamesKey(notAcquired, request.key());
            return Optional.empty();
        } catch (LockException failed) {
            run.problem("acquiring " + request + " threw " + failed);
            return Optional.empty();
        } finally {
            run.waited(request, System.nanoTime() - start);
        }
    }

    /** A nested acquisition on the holding thread is the same hold (unless that hold is known lost). */
    private void reenterThenLeave(String holder, String key, LockHandle held, long holdMillis, boolean shortLease) {
        long enter = System.nanoTime();
        LockMode otherMode = held.mode() == LockMode.PESSIMISTIC ? LockMode.OPTIMISTIC : LockMode.PESSIMISTIC;
        LockRequest again = LockRequest.of(key).mode(otherMode).maxWait(Duration.ZERO);
        try {
            LockHandle nested = locks.acquire(again);
            if (nested.token() == held.token()) {
                work(holdMillis);
                nested.close();
            } else {
                if (held.isValid()) {
                    run.problem(holder + ": a nested acquisition of a valid hold of '" + key + "' got token "
                            + nested.token() + ", not the hold's " + held.token());
                }
                // a lost hold is not re-entered: the nested one is a new acquisition of its own
                leave(holder + "/fresh", key, System.nanoTime(), nested, holdMillis, false);
            }
        } catch (LockNotAcquiredException notAcquired) {
            run.checkNamesKey(notAcquired, key);
            if (held.isValid()) {
                run.problem(holder + ": a nested acquisition of a valid hold of '" + key + "' was refused");
            }
        } catch (LockException failed) {
            run.problem(holder + ": a nested acquisition of '" + key + "' threw " + failed);
        }
        long exit = System.nanoTime();
        boolean told = !held.isValid();
        told |= closeTellsLoss(key, held);
        run.record(key, new CriticalSection(holder, held.token(), enter, exit, told), shortLease);
    }

    private void callLocked(String holder, LockRequest request, long holdMillis, boolean shortLease) {
        long[] section = new long[3];
        boolean[] toldInside = new boolean[1];
        long start = System.nanoTime();
        try {
            locks.callLocked(request, () -> {
                section[0] = System.nanoTime();
                run.waited(request, section[0] - start);
                LockHandle current = locks.current(request.key()).orElseThrow();
                section[2] = current.token();
                work(holdMillis);
                section[1] = System.nanoTime();
                toldInside[0] = !current.isValid();
                return null;
            });
        } catch (LockNotAcquiredException notAcquired) {
            run.checkNamesKey(notAcquired, request.key());
            run.waited(request, System.nanoTime() - start);
            if (section[0] != 0) {
                run.problem(holder + ": callLocked ran its action, then said not acquired: " + notAcquired);
            }
            return;
        } catch (LockLostException lost) {
            run.checkNamesKey(lost, request.key());
            run.told(request.key(), section[2], lost.getMessage());
            toldInside[0] = true;
        } catch (Exception failed) {
            run.problem(holder + ": callLocked(" + request + ") threw " + failed);
            return;
        }
        if (!toldInside[0]) {
            run.released(request.key(), section[2], System.nanoTime());
        }
        run.record(request.key(), new CriticalSection(holder, section[2], section[0], section[1], toldInside[0]), shortLease);
    }

    /**
     * The handle goes to another thread, which closes it; meanwhile this thread is no longer inside
     * the lock's scope, so the same key is not re-entered.
     */
    private void handOver(String holder, String key, LockHandle held, long holdMillis, boolean shortLease) {
        long enter = System.nanoTime();
        held.handOver();
        // only a loss the holder is told of (a forced release) can free the key here; the history judges
        acquire(LockRequest.of(key).mode(held.mode()).maxWait(Duration.ZERO)).ifPresent(again -> {
            if (again.token() == held.token()) {
                run.problem(holder + ": the thread that handed '" + key + "' (token " + held.token()
                        + ") over re-entered it");
            }
            leave(holder + "/after-hand-over", key, System.nanoTime(), again, 0, false);
        });
        awaitHandOver();
        handedOver = receivers.submit(() -> leave(holder + HANDED_OVER, key, enter, held, holdMillis, shortLease));
    }

    private void leave(String holder, String key, long enter, LockHandle held, long holdMillis, boolean shortLease) {
        work(holdMillis);
        long exit = System.nanoTime();
        boolean told = !held.isValid();
        told |= closeTellsLoss(key, held);
        run.record(key, new CriticalSection(holder, held.token(), enter, exit, told), shortLease);
    }

    private void awaitHandOver() {
        if (handedOver == null) {
            return;
        }
        try {
            handedOver.get(HAND_OVER_PATIENCE_SECONDS, TimeUnit.SECONDS);
        } catch (Exception hungOrFailed) {
            run.problem(name + ": a handed-over hold was not closed within " + HAND_OVER_PATIENCE_SECONDS + " s: "
                    + hungOrFailed);
        }
        handedOver = null;
    }

    /** @return whether close told the holder that the lock had been lost */
    private boolean closeTellsLoss(String key, LockHandle held) {
        try {
            held.close();
            run.released(key, held.token(), System.nanoTime());
            return false;
        } catch (LockLostException lost) {
            run.checkNamesKey(lost, key);
            run.told(key, held.token(), lost.getMessage());
            if (!lost.getMessage().contains("(token " + held.token() + ")")) {
                run.problem("the loss of token " + held.token() + " named another: " + lost.getMessage());
            }
            return true;
        } catch (LockException failed) {
            run.problem("closing '" + key + "' (token " + held.token() + ") threw " + failed);
            return false;
        }
    }

    /** The holder's work inside the critical section. */
    static void work(long millis) {
        try {
            if (millis == 0) {
                Thread.yield();
            } else {
                Thread.sleep(millis);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
