package io.locked.it.process;

import io.locked.api.LockHandle;
import io.locked.contract.Places;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Commands a worker JVM reads from its standard input, one per line:
 * <ul>
 *   <li>{@code gate}: the next critical section, right after it has read the counter, prints
 *   {@code GATED thread token enter key} (enter: when it got in, its {@code nanoTime}; key: what it
 *   holds, for a permit the slot key, {@linkplain RowLines#encode encoded}) and waits there,
 *   holding the lock, until {@code open}: the test then knows a holder is inside and can inject its
 *   fault at that moment;</li>
 *   <li>{@code gate-writer}: the same for the next section that writes the counter (under a
 *   read/write lock a reader's section does not and passes);</li>
 *   <li>{@code open}: lets the gated section go on and write;</li>
 *   <li>{@code stop}: every thread ends after its current cycle; so does the end of the input,
 *   so a worker never outlives the test that started it.</li>
 * </ul>
 */
final class WorkerControl {
    private volatile boolean stopping;
    private final AtomicReference<Gate> armedGate = new AtomicReference<>();
    private volatile CountDownLatch openGate = new CountDownLatch(0);

    private WorkerControl() {
    }

    /** @return control that reads commands from the input on a daemon thread */
    static WorkerControl listen(InputStream input) {
        WorkerControl control = new WorkerControl();
        Thread reader = new Thread(() -> control.read(input), "worker-control");
        reader.setDaemon(true);
        reader.start();
        return control;
    }

    private void read(InputStream input) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(input, StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                switch (line.trim()) {
                    case "gate", "gate-writer" -> {
                        CountDownLatch gate = new CountDownLatch(1);
                        openGate = gate;
                        armedGate.set(new Gate(gate, line.trim().equals("gate-writer")));
                    }
                    case "open" -> openGate.countDown();
                    case "stop" -> stop();
                    default -> System.err.println("unknown command: " + line);
                }
            }
        } catch (IOException e) {
            e.printStackTrace();
        }
        stop();
    }

    private void stop() {
        stopping = true;
        openGate.countDown();
    }

    boolean stopping() {
        return stopping;
    }

    /**
     * Waits here, announced, if a gate is armed for this section and no other thread took it.
     *
     * @param writer whether this section writes the counter
     * @return whether this thread was gated
     */
    boolean passGate(String thread, LockHandle lock, long enter, boolean writer) throws InterruptedException {
        Gate gate = armedGate.get();
        if (gate == null || (gate.writersOnly() && !writer) || !armedGate.compareAndSet(gate, null)) {
            return false;
        }
        WorkerEvents.print("GATED " + thread + " " + lock.token() + " " + enter + " " + RowLines.encode(Places.of(lock)));
        gate.latch().await();
        return true;
    }

    /** An armed gate: the latch it waits on until {@code open}, and whether only a writer may take it. */
    private record Gate(CountDownLatch latch, boolean writersOnly) {
    }
}
