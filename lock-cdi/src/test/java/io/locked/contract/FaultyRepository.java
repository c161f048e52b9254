package io.locked.contract;

import io.locked.api.LockStoreUnavailableException;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.PessimisticHold;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A repository whose calls for chosen keys go wrong the ways a network and a database do: a renewal
 * or a session check that hangs (until {@link #unstall()}), and a renewal that the store applied but
 * whose reply was lost. It counts, per key, the renewals sent and those the store confirmed.
 */
public final class FaultyRepository extends DelegatingRepository {
    private final Set<String> stalledRenewals = ConcurrentHashMap.newKeySet();
    private final Set<String> stalledChecks = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> repliesToLose = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> confirmed = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> sent = new ConcurrentHashMap<>();
    private final CountDownLatch stalled = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** @param delegate the store that does the work */
    public FaultyRepository(LockRepository delegate) {
        super(delegate);
    }

    /** @param key from now on, the key's renewals hang until {@link #unstall()} */
    public void stallRenewalsOf(String key) {
        stalledRenewals.add(key);
    }

    /** @param key from now on, session checks of the key's pessimistic holds hang until {@link #unstall()} */
    public void stallSessionChecksOf(String key) {
        stalledChecks.add(key);
    }

    /**
     * @param key   a lock key
     * @param count how many of its next renewals the store applies while their caller sees a failure
     */
    public void loseRenewalRepliesOf(String key, int count) {
        repliesToLose.put(key, new AtomicInteger(count));
    }

    /** Waits until a stalled call is hanging. */
    public void awaitStall() throws InterruptedException {
        stalled.await();
    }

    /** Lets every hanging call go on, and no later one hang. */
    public void unstall() {
        stalledRenewals.clear();
        stalledChecks.clear();
        released.countDown();
    }

    /**
     * @param key a lock key
     * @return how many renewals of the key the store confirmed (lost replies included)
     */
    public int renewals(String key) {
        return confirmed.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    /**
     * @param key a lock key
     * @return how many renewals of the key were sent to the store, answered or not
     */
    public int renewalsSent(String key) {
        return sent.computeIfAbsent(key, k -> new AtomicInteger()).get();
    }

    private void hangIf(Set<String> keys, String key) {
        if (!keys.contains(key)) {
            return;
        }
        stalled.countDown();
        try {
            released.await();
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new LockStoreUnavailableException(key, "interrupted while stalled by the test", interrupted);
        }
    }

    @Override
    public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
        PessimisticHold hold = delegate.lockPessimistic(key, owner, holder, dbWait);
        return hold == null ? null : new PessimisticHold() {
            @Override
            public long token() {
                return hold.token();
            }

            @Override
            public boolean isAlive(Duration timeout) {
                hangIf(stalledChecks, key);
                return hold.isAlive(timeout);
            }

            @Override
            public AnotherRow lockAnotherRow(String rowKey, boolean shared) {
                return hold.lockAnotherRow(rowKey, shared);
            }

            @Override
            public boolean release() {
                return hold.release();
            }
        };
    }

    @Override
    public Lease renewLease(Lease lease, Duration duration) {
        sent.computeIfAbsent(lease.key(), k -> new AtomicInteger()).incrementAndGet();
        hangIf(stalledRenewals, lease.key());
        Lease renewed = delegate.renewLease(lease, duration);
        if (renewed != null) {
            confirmed.computeIfAbsent(lease.key(), k -> new AtomicInteger()).incrementAndGet();
            AtomicInteger toLose = repliesToLose.get(lease.key());
            if (toLose != null && toLose.getAndDecrement() > 0) {
                throw new LockStoreUnavailableException(lease.key(), "the renewal's reply was lost (test)", null);
            }
        }
        return renewed;
    }

}
