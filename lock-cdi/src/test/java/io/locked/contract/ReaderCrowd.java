package io.locked.contract;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Readers of one manager arriving at one key together: each on a thread of its own, held at a gate until all
 * are there, then let in at once, most of them without waiting ({@code tryAcquire}, a wait of zero) and some
 * with a short wait. Several of them then form a group of their own at the same moment, the shape that once
 * left groups forgotten, their slots held for good.
 */
final class ReaderCrowd implements AutoCloseable {
    /** How long a crowd may take, its gate and its readers' short waits included, before the run counts it as hung. */
    private static final long PATIENCE_SECONDS = 30;
    private final ExecutorService threads;
    private final int size;

    /** What the reader of each place in a crowd does once let in (it records its own section). */
    interface Reader {
        void read(int place);
    }

    ReaderCrowd(int size, String name) {
        this.size = size;
        this.threads = Executors.newFixedThreadPool(size, task -> {
            Thread thread = new Thread(task, "random-" + name);
            thread.setDaemon(true);
            return thread;
        });
    }

    int size() {
        return size;
    }

    /**
     * Lets the crowd in together and waits until every reader is done.
     *
     * @param readers how many readers come, up to {@link #size()}
     * @param reader  what the reader of each place does
     * @return null, or why the crowd did not finish
     */
    String arriveTogether(int readers, Reader reader) throws InterruptedException {
        CountDownLatch ready = new CountDownLatch(readers);
        CountDownLatch gate = new CountDownLatch(1);
        List<Future<?>> inside = new ArrayList<>();
        for (int place = 0; place < readers; place++) {
            int mine = place;
            inside.add(threads.submit(() -> {
                ready.countDown();
                gate.await();
                reader.read(mine);
                return null;
            }));
        }
        if (!ready.await(PATIENCE_SECONDS, TimeUnit.SECONDS)) {
            gate.countDown();
            return "a crowd's readers did not reach its gate within " + PATIENCE_SECONDS + " s";
        }
        gate.countDown();
        for (Future<?> one : inside) {
            try {
                one.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
            } catch (Exception hungOrFailed) {
                return "a reader of a crowd did not finish within " + PATIENCE_SECONDS + " s: " + hungOrFailed;
            }
        }
        return null;
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
