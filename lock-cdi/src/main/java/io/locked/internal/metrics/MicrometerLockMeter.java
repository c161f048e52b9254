package io.locked.internal.metrics;

import io.locked.api.LockMode;
import io.locked.internal.base.LockKind;
import io.locked.internal.base.LockMeter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one lock name and mode, registered once. Names and tags are listed in
 * {@code docs/operations.md}; the tags carry the lock's name (a template), never a rendered key,
 * so their number stays that of the application's templates.
 */
final class MicrometerLockMeter implements LockMeter {
    /**
     * Micrometer's default, given to each timer rather than asked of the registry: a timer built
     * without one reads {@code registry.config()}, which WildFly's managed registry answers with a
     * warning (WFLYMMTREXT0015) per timer. A lock's wait and hold are measured as the caller lived
     * them, pauses included, so no registry's pause correction is wanted here anyway.
     */
    private static final NoPauseDetector NO_PAUSE_CORRECTION = new NoPauseDetector();
    private final Timer waitAcquired;
    private final Timer waitNotAcquired;
    private final Timer waitNoConnection;
    private final Timer waitFailed;
    private final Counter acquired;
    private final Counter notAcquired;
    private final Counter noConnection;
    private final Counter failed;
    private final Timer holdReleased;
    private final Timer holdLost;
    private final Timer holdFailed;
    private final Counter losses;
    private final Counter storeErrorsAcquiring;
    private final Counter storeErrorsRenewing;
    private final Counter storeErrorsReleasing;
    private final AtomicLong held = new AtomicLong();

    MicrometerLockMeter(MeterRegistry registry, String name, LockMode mode, LockKind kind) {
        Tags lock = Tags.of("name", name, "mode", mode.name().toLowerCase(), "type", kind.tag());
        waitAcquired = wait(registry, lock, "acquired");
        waitNotAcquired = wait(registry, lock, "not_acquired");
        waitNoConnection = wait(registry, lock, "no_connection");
        waitFailed = wait(registry, lock, "failed");
        acquired = acquisitions(registry, lock, "acquired");
        notAcquired = acquisitions(registry, lock, "not_acquired");
        noConnection = acquisitions(registry, lock, "no_connection");
        failed = acquisitions(registry, lock, "failed");
        holdReleased = hold(registry, lock, "released");
        holdLost = hold(registry, lock, "lost");
        holdFailed = hold(registry, lock, "failed");
        losses = Counter.builder("locked.losses").description("Held locks lost: lease ran out or taken over, session ended")
                .tags(lock).register(registry);
        storeErrorsAcquiring = storeErrors(registry, lock, "acquire");
        storeErrorsRenewing = storeErrors(registry, lock, "renew");
        storeErrorsReleasing = storeErrors(registry, lock, "release");
        Gauge.builder("locked.held", held, AtomicLong::get).description("Locks held now by this JVM")
                .tags(lock).strongReference(true).register(registry);
    }

    private static Timer wait(MeterRegistry registry, Tags lock, String outcome) {
        return Timer.builder("locked.wait").description("Time from a lock request to its outcome")
                .tags(lock).tag("outcome", outcome).pauseDetector(NO_PAUSE_CORRECTION).register(registry);
    }

    private static Counter acquisitions(MeterRegistry registry, Tags lock, String outcome) {
        return Counter.builder("locked.acquisitions").description("Lock requests by outcome (reentrant entries excluded)")
                .tags(lock).tag("outcome", outcome).register(registry);
    }

    private static Timer hold(MeterRegistry registry, Tags lock, String outcome) {
        return Timer.builder("locked.hold").description("Time from acquiring a lock to the end of its release")
                .tags(lock).tag("outcome", outcome).pauseDetector(NO_PAUSE_CORRECTION).register(registry);
    }

    private static Counter storeErrors(MeterRegistry registry, Tags lock, String operation) {
        return Counter.builder("locked.store.errors").description("Lock store failures (database down or too slow)")
                .tags(lock).tag("operation", operation).register(registry);
    }

    @Override
    public void acquired(long waitedNanos, long token) {
        held.incrementAndGet();
        acquired.increment();
        waitAcquired.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void notAcquired(long waitedNanos) {
        notAcquired.increment();
        waitNotAcquired.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void noConnection(long waitedNanos) {
        noConnection.increment();
        waitNoConnection.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void failed(long waitedNanos, Throwable cause) {
        failed.increment();
        waitFailed.record(waitedNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void storeFailed(StoreOperation operation) {
        switch (operation) {
            case ACQUIRE -> storeErrorsAcquiring.increment();
            case RENEW -> storeErrorsRenewing.increment();
            case RELEASE -> storeErrorsReleasing.increment();
        }
    }

    // a lost lock is no longer held: the gauge falls at the loss, not when its holder gets round to closing
    @Override
    public void lost() {
        held.decrementAndGet();
        losses.increment();
    }

    @Override
    public void holdEnded(long heldNanos, HoldOutcome outcome) {
        switch (outcome) {
            case RELEASED -> {
                held.decrementAndGet();
                holdReleased.record(heldNanos, TimeUnit.NANOSECONDS);
            }
            case FAILED -> {
                held.decrementAndGet();
                holdFailed.record(heldNanos, TimeUnit.NANOSECONDS);
            }
            case LOST -> holdLost.record(heldNanos, TimeUnit.NANOSECONDS);
        }
    }
}
