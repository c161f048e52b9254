package io.locked.it.weld.invalid;

import io.locked.api.LockMode;
import io.locked.api.LockType;
import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class HoldOnReadBean {

    @Locked(value = "report", type = LockType.READ, holdAtLeast = "1m")
    public void report() {
    }

    @Locked(value = "audit", type = LockType.READ, mode = LockMode.OPTIMISTIC, lockDelay = "5s")
    public void audit() {
    }
}
