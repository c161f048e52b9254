package io.locked.contract;

import io.locked.api.LockException;
import io.locked.api.LockHandle;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * The read/write side of one manager of a {@link RandomizedHistory}: until its deadline it lets a crowd of
 * readers arrive at a key together ({@link ReaderCrowd}), reads alone, or writes (now and then with a read
 * inside the write), on the run's read/write keys, in the modes the store gives them in, with waits of zero
 * ({@code tryAcquire} too), short and longer, drawn from its own seeded {@link Random}. Every section goes to
 * its key's history ({@link ReadWriteKeys}) under the holder "process/thread#operation" and its mode's letter.
 */
final class ReadWriteWorker {
    private static final List<Duration> WAITS = List.of(Duration.ZERO, Duration.ofMillis(50), Duration.ofMillis(500));
    private static final int CROWD = 4;
    private final String process;
    private final LockManager locks;
    private final Random random;
    private final RandomizedHistory run;
    private final ReadWriteKeys keys;

    ReadWriteWorker(String process, LockManager locks, long seed, RandomizedHistory run, ReadWriteKeys keys) {
        this.process = process;
        this.locks = locks;
        this.random = new Random(seed);
        this.run = run;
        this.keys = keys;
    }

    void runUntil(long deadlineNanos, int maxOperations) throws InterruptedException {
        try (ReaderCrowd crowd = new ReaderCrowd(CROWD, process + "-crowd")) {
            for (int i = 0; i < maxOperations && System.nanoTime() - deadlineNanos < 0; i++) {
                String key = keys.keys().get(random.nextInt(keys.keys().size()));
                List<LockMode> modes = keys.modes();
                LockMode mode = modes.get(random.nextInt(modes.size()));
                switch (random.nextInt(8)) {
                    case 0, 1, 2, 3 -> crowd(crowd, key, mode, i);
                    case 4, 5 -> read(process + "/r#" + i, request(key, mode).read());
                    default -> write(process + "/w#" + i, request(key, mode).write());
                }
            }
        }
    }

    private LockRequest request(String key, LockMode mode) {
        return LockRequest.of(key).mode(mode).maxWait(WAITS.get(random.nextInt(WAITS.size())));
    }

    /** Most of a crowd comes without waiting, the shape that forms several groups at once. */
    private void crowd(ReaderCrowd crowd, String key, LockMode mode, int operation) throws InterruptedException {
        List<LockRequest> requests = new ArrayList<>();
        List<Integer> workMillis = new ArrayList<>();
        for (int r = 0; r < crowd.size(); r++) {
            Duration wait = random.nextInt(4) == 0 ? Duration.ofMillis(50) : Duration.ZERO;
            requests.add(LockRequest.of(key).mode(mode).maxWait(wait).read());
            workMillis.add(random.nextInt(3));
        }
        boolean tryAcquire = random.nextBoolean();
        String failed = crowd.arriveTogether(requests.size(), place -> acquire(requests.get(place), tryAcquire)
                .ifPresent(held -> leave(process + "/c" + place + "#" + operation, requests.get(place), held, false,
                        workMillis.get(place))));
        if (failed != null) {
            run.problem(process + ": " + failed);
        }
    }

    private void read(String holder, LockRequest request) {
        boolean tryAcquire = random.nextBoolean();
        int workMillis = random.nextInt(3);
        acquire(request, tryAcquire).ifPresent(held -> leave(holder, request, held, false, workMillis));
    }

    private void write(String holder, LockRequest request) {
        boolean tryAcquire = random.nextBoolean();
        boolean readInside = random.nextInt(3) == 0;
        int workMillis = random.nextInt(3);
        acquire(request, tryAcquire).ifPresent(held -> {
            if (readInside) {
                readInside(holder, request, held);
            }
            leave(holder, request, held, true, workMillis);
        });
    }

    /** A read inside a write of the same key is allowed, and takes nothing more. */
    private void readInside(String holder, LockRequest write, LockHandle held) {
        LockRequest read = LockRequest.of(write.key()).mode(write.mode()).maxWait(Duration.ZERO).read();
        try {
            locks.acquire(read).close();
        } catch (LockNotAcquiredException refused) {
            run.checkNamesKey(refused, write.key());
            if (held.isValid()) {
                run.problem(holder + ": a read inside a valid write of '" + write.key() + "' was refused: " + refused);
            }
        } catch (LockException failed) {
            if (held.isValid()) {
                run.problem(holder + ": a read inside a valid write of '" + write.key() + "' threw " + failed);
            }
        }
    }

    private Optional<LockHandle> acquire(LockRequest request, boolean tryAcquire) {
        long start = System.nanoTime();
        try {
            if (request.maxWait().isZero() && tryAcquire) {
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

    private void leave(String holder, LockRequest request, LockHandle held, boolean writer, int workMillis) {
        long enter = System.nanoTime();
        RandomWorker.work(workMillis);
        long exit = System.nanoTime();
        boolean told = !held.isValid();
        try {
            held.close();
        } catch (LockLostException lost) {
            // a read/write handle's key is the row it holds (LockHandle.key()): its loss may name that row
            if (!held.key().equals(lost.key()) || !lost.getMessage().contains(held.key())) {
                run.checkNamesKey(lost, request.key());
            }
            run.told(request.key(), held.token(), lost.getMessage());
            told = true;
        } catch (LockException failed) {
            run.problem("closing " + (writer ? "the write" : "a read") + " of '" + request.key() + "' threw " + failed);
        }
        String mode = held.mode() == LockMode.PESSIMISTIC ? "P" : "O";
        keys.record(request.key(), held, writer, new CriticalSection(holder + mode, held.token(), enter, exit, told));
    }
}
