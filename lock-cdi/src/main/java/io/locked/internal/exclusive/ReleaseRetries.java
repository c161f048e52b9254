package io.locked.internal.exclusive;

import io.locked.api.LockException;
import io.locked.api.LockStoreUnavailableException;
import io.locked.internal.base.KeepSweep;
import io.locked.internal.base.KeepTimer;
import io.locked.internal.base.LockLog;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Releases of leases that the store could not be reached for, sent again every second until one is answered or
 * the lease has run out on this JVM's count. Without them a release lost to an outage keeps the key taken for
 * the rest of the lease (30 s by default, a scheduled job's whole lease) after the store is back; with them the
 * key comes back within about a second of the store. The holder is still told that its release failed: it does
 * not know, and cannot wait to learn, whether the store will come back while the lease lasts.
 *
 * <p>Safe to send late: a release frees the row only while this lease's owner and token are still there, so a
 * release that arrives after the lease ran out and another holder took the key changes nothing. A release that
 * keeps a minimum hold is sent again as such. At most {@link KeepSweep#MOST_KEPT} releases wait at once (past
 * that a failed release is left to run out, as without them), and closing the manager stops them.
 */
final class ReleaseRetries {
    /** None: a failed release is left to run out (a manager without a timer, as the core's models are). */
    static final ReleaseRetries NONE = new ReleaseRetries(null);
    /** How long after a failed release it is sent again. */
    static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

    /** Null for {@link #NONE}. */
    private final KeepTimer timer;
    private final AtomicInteger waiting = new AtomicInteger();
    private volatile boolean closed;

    ReleaseRetries(KeepTimer timer) {
        this.timer = timer;
    }

    /**
     * Releases a lease, and sends the release again later if the store could not be reached.
     *
     * @param holdAtLeast the release's minimum hold ({@link LockRepository#releaseLease(Lease, Duration)}), or
     *                    null for a plain release
     * @param liveNanos   how much longer the lease is live on this JVM's count: no release is sent past it
     * @param holder      who held it, for the log
     * @return as {@link LockRepository#releaseLease(Lease)}: true if the lease was still live
     * @throws LockStoreUnavailableException as the store's release does; the release is then sent again
     */
    boolean release(LockRepository repository, Lease lease, Duration holdAtLeast, long liveNanos, String holder) {
        // counted from before the send, as liveNanos is: a send that failed after a long wait must not stretch it
        long liveUntilNanos = timer == null ? 0 : timer.nanoTime() + liveNanos;
        try {
            return send(repository, lease, holdAtLeast);
        } catch (LockStoreUnavailableException failed) {
            if (timer != null) {
                waiting.incrementAndGet();
                sendAgain(new Retry(repository, lease, holdAtLeast, liveUntilNanos, holder), 1);
            }
            throw failed;
        }
    }

    /** The manager closes: no release is sent again from now on (each lease runs out on its own). */
    void close() {
        closed = true;
    }

    /** @param retry counted in {@link #waiting}, until it is no longer sent again */
    private record Retry(LockRepository repository, Lease lease, Duration holdAtLeast, long liveUntilNanos, String holder) {
    }

    private void sendAgain(Retry retry, int sent) {
        boolean later = !closed && waiting.get() <= KeepSweep.MOST_KEPT
                && timer.nanoTime() + RETRY_NANOS - retry.liveUntilNanos() < 0;
        if (!later || !timer.once(RETRY_NANOS, () -> attempt(retry, sent + 1))) {
            waiting.decrementAndGet();
        }
    }

    /** @param sent how many times the release was sent, this one included */
    private void attempt(Retry retry, int sent) {
        if (closed) {
            waiting.decrementAndGet();
            return;
        }
        boolean released;
        try {
            released = send(retry.repository(), retry.lease(), retry.holdAtLeast());
        } catch (LockException failed) {
            sendAgain(retry, sent);
            return;
        }
        waiting.decrementAndGet();
        LockLog.releasedAfterFailure(retry.lease().key(), retry.lease().token(), retry.holder(), sent, released);
    }

    private static boolean send(LockRepository repository, Lease lease, Duration holdAtLeast) {
        return holdAtLeast == null ? repository.releaseLease(lease) : repository.releaseLease(lease, holdAtLeast);
    }
}
