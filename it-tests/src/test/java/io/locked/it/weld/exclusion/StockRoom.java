package io.locked.it.weld.exclusion;

import io.locked.api.Locked;
import io.locked.api.event.LockAcquired;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryRecorder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashMap;
import java.util.Map;

/** Takes stock with a deliberately non-atomic read-then-write; only {@code @Locked} keeps it exact. */
@ApplicationScoped
public class StockRoom {
    private final Map<String, Integer> taken = new HashMap<>();
    private final HistoryRecorder history = new HistoryRecorder();
    // the lock events fire on the calling thread, right after the lock is taken
    private final ThreadLocal<Long> token = new ThreadLocal<>();

    void onAcquired(@Observes LockAcquired acquired) {
        token.set(acquired.token());
    }

    @Locked("stock:{item}")
    public void take(String item) {
        long enter = System.nanoTime();
        int before = taken.getOrDefault(item, 0);
        Thread.yield();
        taken.put(item, before + 1);
        history.record(new CriticalSection(Thread.currentThread().getName(), token.get(), enter, System.nanoTime()));
    }

    public int taken(String item) {
        return taken.getOrDefault(item, 0);
    }

    public HistoryRecorder history() {
        return history;
    }
}
