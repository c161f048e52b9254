package io.locked.internal.base;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import java.time.Duration;

/** Two reports at once, Micrometer's and OpenTelemetry's: each call goes to the first, then the second. */
record BothLockMetrics(LockMetrics first, LockMetrics second) implements LockMetrics {

    @Override
    public LockMeter forLock(String name, LockMode mode, LockKind kind) {
        return new BothLockMeters(first.forLock(name, mode, kind), second.forLock(name, mode, kind));
    }

    @Override
    public LockMeter forRequest(LockRequest request, Duration wait, LockKind kind) {
        return new BothLockMeters(first.forRequest(request, wait, kind), second.forRequest(request, wait, kind));
    }

    @Override
    public Runnable carryContext(Runnable task) {
        return second.carryContext(first.carryContext(task));
    }

    private record BothLockMeters(LockMeter first, LockMeter second) implements LockMeter {
        @Override
        public void acquired(long waitedNanos, long token) {
            first.acquired(waitedNanos, token);
            second.acquired(waitedNanos, token);
        }

        @Override
        public void notAcquired(long waitedNanos) {
            first.notAcquired(waitedNanos);
            second.notAcquired(waitedNanos);
        }

        @Override
        public void noConnection(long waitedNanos) {
            first.noConnection(waitedNanos);
            second.noConnection(waitedNanos);
        }

        @Override
        public void failed(long waitedNanos, Throwable cause) {
            first.failed(waitedNanos, cause);
            second.failed(waitedNanos, cause);
        }

        @Override
        public void storeFailed(StoreOperation operation) {
            first.storeFailed(operation);
            second.storeFailed(operation);
        }

        @Override
        public void lost() {
            first.lost();
            second.lost();
        }

        @Override
        public void holdEnded(long heldNanos, HoldOutcome outcome) {
            first.holdEnded(heldNanos, outcome);
            second.holdEnded(heldNanos, outcome);
        }
    }
}
