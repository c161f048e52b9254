package io.locked.it.weld.invalid;

import io.locked.api.LockType;
import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class PermitsWithReadBean {

    @Locked(value = "catalog", type = LockType.READ, permits = 2)
    public void read() {
    }
}
