package io.locked.eeapp;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.atomic.AtomicInteger;

/** Its wait and on-timeout come from MicroProfile Config (microprofile-config.properties), not from the annotation. */
@ApplicationScoped
public class Reports {
    private final AtomicInteger runs = new AtomicInteger();

    @Locked(value = "report:daily", maxWait = "20s")
    public void daily() {
        runs.incrementAndGet();
    }

    public int runs() {
        return runs.get();
    }
}
