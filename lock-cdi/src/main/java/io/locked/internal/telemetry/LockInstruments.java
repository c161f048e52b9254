package io.locked.internal.telemetry;

import io.locked.api.LockMode;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockMeter;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.LongUpDownCounter;
import io.opentelemetry.api.metrics.Meter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The metrics Locked reports through Micrometer, as OpenTelemetry instruments: durations in seconds,
 * attributed by the lock's name (a template), never by a rendered key, so their number stays that of
 * the application's templates.
 */
final class LockInstruments {
    private static final double NANOS_PER_SECOND = 1e9;
    private final DoubleHistogram wait;
    private final LongCounter acquisitions;
    private final DoubleHistogram hold;
    private final LongCounter losses;
    private final LongCounter storeErrors;
    private final LongUpDownCounter held;

    LockInstruments(Meter meter) {
        wait = meter.histogramBuilder("locked.wait.duration").setUnit("s")
                .setDescription("Time from a lock request to its outcome").build();
        acquisitions = meter.counterBuilder("locked.acquisitions").setUnit("{acquisition}")
                .setDescription("Lock requests by outcome (reentrant entries excluded)").build();
        hold = meter.histogramBuilder("locked.hold.duration").setUnit("s")
                .setDescription("Time from acquiring a lock to the end of its release").build();
        losses = meter.counterBuilder("locked.losses").setUnit("{loss}")
                .setDescription("Held locks lost: lease ran out or taken over, session ended").build();
        storeErrors = meter.counterBuilder("locked.store.errors").setUnit("{error}")
                .setDescription("Lock store failures (database down or too slow)").build();
        held = meter.upDownCounterBuilder("locked.held").setUnit("{lock}")
                .setDescription("Locks held now by this JVM").build();
    }

    Lock forLock(String name, LockMode mode, LockKind kind) {
        return new Lock(name, mode, kind, Attributes.of(LockConvention.NAME, name, LockConvention.MODE,
                mode.name().toLowerCase(Locale.ROOT), LockConvention.TYPE, kind.tag()));
    }

    /** One lock name, mode and kind: its attributes, built once per outcome. */
    final class Lock {
        final String name;
        final String mode;
        final String type;
        private final Attributes attributes;
        private final Map<String, Attributes> byOutcome = new ConcurrentHashMap<>();

        private Lock(String name, LockMode mode, LockKind kind, Attributes attributes) {
            this.name = name;
            this.mode = mode.name().toLowerCase(Locale.ROOT);
            this.type = kind.tag();
            this.attributes = attributes;
        }

        void waited(long waitedNanos, String outcome) {
            Attributes tagged = outcome(outcome);
            acquisitions.add(1, tagged);
            wait.record(waitedNanos / NANOS_PER_SECOND, tagged);
            if (LockConvention.ACQUIRED.equals(outcome)) {
                held.add(1, attributes);
            }
        }

        void storeFailed(LockMeter.StoreOperation operation) {
            storeErrors.add(1, attributes.toBuilder()
                    .put(LockConvention.STORE_OPERATION, operation.name().toLowerCase(Locale.ROOT)).build());
        }

        // a lost lock is no longer held: the count falls at the loss, not when its holder gets round to closing
        void lost() {
            held.add(-1, attributes);
            losses.add(1, attributes);
        }

        void holdEnded(long heldNanos, String outcome) {
            if (!LockConvention.LOST.equals(outcome)) {
                held.add(-1, attributes);
            }
            hold.record(heldNanos / NANOS_PER_SECOND, outcome(outcome));
        }

        private Attributes outcome(String outcome) {
            return byOutcome.computeIfAbsent(outcome,
                    value -> attributes.toBuilder().put(LockConvention.OUTCOME, value).build());
        }
    }
}
