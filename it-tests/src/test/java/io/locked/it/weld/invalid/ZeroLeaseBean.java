package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class ZeroLeaseBean {

    @Locked(value = "job", lease = "0s")
    public void job() {
    }
}
