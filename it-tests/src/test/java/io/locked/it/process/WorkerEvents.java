package io.locked.it.process;

/**
 * What a worker JVM tells the test on its standard output, one event per line, so the test can
 * wait for conditions (a holder inside, a waiter refused, cycles after a fault) instead of sleeping.
 * Times are {@link System#nanoTime()}, comparable with the test JVM's on one Linux machine.
 */
final class WorkerEvents {
    private WorkerEvents() {
    }

    static void print(String event) {
        System.out.println(event);
        System.out.flush();
    }
}
