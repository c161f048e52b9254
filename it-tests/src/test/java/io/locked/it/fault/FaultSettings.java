package io.locked.it.fault;

import java.time.Duration;

/**
 * How long and how hard the fault scenarios run. The suite's defaults keep each scenario to a few
 * seconds of load; {@code -Pfaults} sets {@code faults.seconds=600}, and every value can be given
 * as a system property.
 *
 * @param load            how long each scenario keeps injecting its fault (at least once)
 * @param betweenFaults   plain load between two injections
 * @param lease           each optimistic acquisition's lease
 * @param maxWait         each acquisition's wait
 * @param workers         worker JVMs on the key
 * @param threads         threads per worker
 * @param patience        the longest any awaited condition may take before the test calls it a hang
 */
record FaultSettings(Duration load, Duration betweenFaults, Duration lease, Duration maxWait, int workers, int threads,
                     Duration patience) {

    static FaultSettings fromSystemProperties() {
        return new FaultSettings(
                Duration.ofSeconds(Long.getLong("faults.seconds", 2)),
                Duration.ofSeconds(Long.getLong("faults.between-seconds", 5)),
                Duration.ofMillis(Long.getLong("faults.lease-millis", 1000)),
                Duration.ofMillis(Long.getLong("faults.wait-millis", 1000)),
                Integer.getInteger("faults.workers", 3),
                Integer.getInteger("faults.threads", 2),
                Duration.ofSeconds(Long.getLong("faults.patience-seconds", 90)));
    }
}
