package io.locked.it.fault;

/**
 * One line a fault worker printed (see {@code CycleLoop} and {@code WorkerControl}): its type,
 * then fields separated by spaces. Times are {@link System#nanoTime()} of the worker, on the
 * machine's one monotonic clock.
 *
 * @param worker index of the worker that printed it
 * @param fields the line split on spaces
 */
record WorkerEvent(int worker, String[] fields) {

    static WorkerEvent parse(int worker, String line) {
        return new WorkerEvent(worker, line.trim().split(" "));
    }

    String type() {
        return fields[0];
    }

    /** @return the worker thread it is about (not for READY and DONE) */
    String thread() {
        return fields.length > 1 ? fields[1] : "";
    }

    long nanos(int index) {
        return Long.parseLong(fields[index]);
    }

    boolean is(String type) {
        return type().equals(type);
    }

    /** @return whether it comes from that thread of that worker */
    boolean from(int otherWorker, String otherThread) {
        return worker == otherWorker && thread().equals(otherThread);
    }

    /** @return for FAILED: the kind of failure (NOT_ACQUIRED, STORE_UNAVAILABLE, another LockException's name, UNCLEAR) */
    String failure() {
        return fields[2];
    }

    /** @return for FAILED and LATE: when the acquisition began */
    long attemptStart() {
        return nanos(is("FAILED") ? 3 : 2);
    }

    /** @return for FAILED and LATE: when it ended */
    long attemptEnd() {
        return nanos(is("FAILED") ? 4 : 3);
    }

    /** @return for FAILED: whether the exception named the lock's key */
    boolean keyNamed() {
        return Boolean.parseBoolean(fields[5]);
    }

    @Override
    public String toString() {
        return "worker " + worker + ": " + String.join(" ", fields);
    }
}
