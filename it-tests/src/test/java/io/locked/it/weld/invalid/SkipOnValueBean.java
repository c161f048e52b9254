package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class SkipOnValueBean {

    @Locked(value = "count", onTimeout = OnTimeout.SKIP)
    public int count() {
        return 1;
    }
}
