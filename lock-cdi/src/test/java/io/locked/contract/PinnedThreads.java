package io.locked.contract;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Records where virtual threads blocked while pinned to their carrier: Flight Recorder's
 * {@code jdk.VirtualThreadPinned} events (Java 21+), every one of them, not only those past its default
 * 20 ms. A pinned waiter holds a carrier thread for its whole wait, and a few of them starve all the
 * others. ({@code -Djdk.tracePinnedThreads} is gone since Java 24.)
 */
public final class PinnedThreads implements AutoCloseable {
    private static final int FRAMES_SHOWN = 6;
    private final Recording recording = new Recording();

    private PinnedThreads() {
        recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
        recording.start();
    }

    /** @return a recording, started */
    public static PinnedThreads record() {
        return new PinnedThreads();
    }

    /**
     * One wait of a virtual thread pinned to its carrier.
     *
     * @param stack   its top frames, and the first of Locked's below them
     * @param linking whether it waited while the JVM linked a call site or a class (a record's first
     *                {@code equals}, an enum switch's first use while another thread initialises its class):
     *                once per call site or class in a JVM's life, a pause, not a waiter holding its carrier for
     *                its whole wait
     */
    public record Pinning(String stack, boolean linking) {
    }

    /** Stops the recording. @return each pinned wait since the start */
    public List<Pinning> stop() {
        recording.stop();
        Path folder = null;
        try {
            folder = Files.createTempDirectory("locked-pinning");
            Path file = folder.resolve("pinning.jfr");
            recording.dump(file);
            List<Pinning> pinned = new ArrayList<>();
            for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
                pinned.add(describe(event));
            }
            Files.delete(file);
            return pinned;
        } catch (IOException e) {
            throw new IllegalStateException("the flight recording could not be read", e);
        } finally {
            if (folder != null) {
                folder.toFile().delete();
            }
        }
    }

    private static Pinning describe(RecordedEvent event) {
        if (event.getStackTrace() == null) {
            return new Pinning(event.getEventType().getName() + " without a stack trace", false);
        }
        List<RecordedFrame> frames = event.getStackTrace().getFrames();
        String top = frames.stream().limit(FRAMES_SHOWN).map(PinnedThreads::frame).collect(Collectors.joining(" < "));
        String locked = frames.stream().skip(FRAMES_SHOWN).filter(frame -> type(frame).startsWith("io.locked."))
                .findFirst().map(frame -> " < ... < " + frame(frame)).orElse("");
        // a thread that parked itself shows the park on its stack; one the JVM held up while it linked a call
        // site or waited for another thread to initialise a class shows either the linking or no park at all
        return new Pinning(top + locked, frames.stream().anyMatch(PinnedThreads::linking)
                || frames.stream().noneMatch(PinnedThreads::parking));
    }

    private static boolean parking(RecordedFrame frame) {
        String type = type(frame);
        String method = frame.getMethod().getName();
        return type.equals("java.util.concurrent.locks.LockSupport") || type.equals("jdk.internal.misc.Unsafe") && method.equals("park")
                || type.equals("java.lang.Object") && method.startsWith("wait")
                || type.equals("java.lang.Thread") && method.startsWith("sleep");
    }

    private static boolean linking(RecordedFrame frame) {
        String type = type(frame);
        String method = frame.getMethod().getName();
        return type.startsWith("java.lang.invoke.") || type.equals("java.lang.runtime.ObjectMethods")
                || method.equals("loadClass");
    }

    private static String type(RecordedFrame frame) {
        return frame.getMethod().getType().getName();
    }

    private static String frame(RecordedFrame frame) {
        return type(frame) + "." + frame.getMethod().getName() + ":" + frame.getLineNumber();
    }

    @Override
    public void close() {
        recording.close();
    }
}
