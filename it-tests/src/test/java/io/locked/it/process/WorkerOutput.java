package io.locked.it.process;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * What a worker cycling until stopped prints, kept only as far as a load test needs it: when it was
 * ready, and every event that is not a plain completed cycle (a failed, late or lost acquisition, a
 * failed close). Cycles are dropped, so a long run keeps no line per cycle in memory.
 */
final class WorkerOutput implements Consumer<String> {
    private final CountDownLatch ready = new CountDownLatch(1);
    private final List<String> troubles = new ArrayList<>();
    private volatile long readyNanos;

    @Override
    public void accept(String line) {
        String type = line.split(" ", 2)[0];
        switch (type) {
            case "READY" -> {
                readyNanos = Long.parseLong(line.split(" ")[1]);
                ready.countDown();
            }
            case "CYCLE", "DONE" -> {
                // the history file has every section
            }
            default -> {
                synchronized (troubles) {
                    troubles.add(line);
                }
            }
        }
    }

    /**
     * @return the worker's {@link System#nanoTime()} when its threads were about to start
     * @throws AssertionError if it was not ready within the patience
     */
    long awaitReady(long patienceSeconds) throws InterruptedException {
        if (!ready.await(patienceSeconds, TimeUnit.SECONDS)) {
            throw new AssertionError("worker not ready within " + patienceSeconds + "s");
        }
        return readyNanos;
    }

    /** @return every event other than READY, CYCLE and DONE, in the order printed */
    List<String> troubles() {
        synchronized (troubles) {
            return new ArrayList<>(troubles);
        }
    }
}
