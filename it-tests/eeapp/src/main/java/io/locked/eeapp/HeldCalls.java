package io.locked.eeapp;

import io.locked.api.LockManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Locked calls that stay inside until the test lets them go, so that the test sees from outside, by
 * asking each server, how many hold a key at once, rather than guessing it from timing. A call the
 * test forgets ends after a minute, so that no server thread or lock stays taken for good.
 */
@ApplicationScoped
public class HeldCalls {
    private static final long BOUND_SECONDS = 60;
    private final Map<String, String> inside = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> releases = new ConcurrentHashMap<>();
    @Inject
    LockManager locks;

    /**
     * Called inside a locked method: counts the call as inside until the test releases it.
     *
     * @return the key the call held, and for a permit its slot ({@code key#slot})
     */
    public String hold(String batch, String call) throws InterruptedException {
        String id = batch + "/" + call;
        String key = locks.current().map(held -> held.slot() == 0 ? held.key() : held.key() + "#" + held.slot())
                .orElse("(no lock)");
        inside.put(id, call + " " + Counter.INSTANCE + " " + key);
        try {
            if (!release(id).await(BOUND_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let " + id + " go");
            }
            return key;
        } finally {
            inside.remove(id);
            releases.remove(id);
        }
    }

    /** @return one line per call of the batch inside on this server: call, instance, key held */
    public List<String> inside(String batch) {
        return inside.entrySet().stream().filter(e -> e.getKey().startsWith(batch + "/")).map(Map.Entry::getValue)
                .sorted().toList();
    }

    /** Lets the call go, or lets it pass at once if it has not come in yet. */
    public void let(String batch, String call) {
        release(batch + "/" + call).countDown();
    }

    private CountDownLatch release(String id) {
        return releases.computeIfAbsent(id, ignored -> new CountDownLatch(1));
    }
}
