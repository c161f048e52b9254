package io.locked.bench;

import io.locked.api.LockMode;
import io.locked.api.Locked;

/** The {@code @Locked} cases: the same cycle as the API cases, through the interceptor. */
public class LockedCycles {

    @Locked(value = "{key}", mode = LockMode.PESSIMISTIC, maxWait = "60s")
    public void pessimistic(String key, Runnable inside) {
        inside.run();
    }

    @Locked(value = "{key}", mode = LockMode.OPTIMISTIC, maxWait = "60s", lease = "30s")
    public void optimistic(String key, Runnable inside) {
        inside.run();
    }
}
