package com.acme;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

@ApplicationScoped
public class Jobs {
    static final String KEY = "weld-se-app";

    @Inject
    LockManager locks;

    /** @return the lock this call ran under, and whether the lock table shows it held */
    @Locked(key = KEY, mode = LockMode.OPTIMISTIC)
    public String run() {
        LockHandle handle = locks.current().orElseThrow(() -> new IllegalStateException("not called under the lock"));
        return "key=" + handle.key() + " mode=" + handle.mode() + " held=" + locks.inspect(KEY).held();
    }
}
