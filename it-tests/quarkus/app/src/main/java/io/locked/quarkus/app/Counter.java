package io.locked.quarkus.app;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.HashMap;
import java.util.Map;

/** A deliberately non-atomic counter: only {@code @Locked} keeps concurrent increments from being lost. */
@ApplicationScoped
public class Counter {
    private final Map<String, Integer> counts = new HashMap<>();

    @Locked("counter:{name}")
    public void increment(String name) {
        int before = counts.getOrDefault(name, 0);
        Thread.yield();
        counts.put(name, before + 1);
    }

    public int count(String name) {
        return counts.getOrDefault(name, 0);
    }
}
