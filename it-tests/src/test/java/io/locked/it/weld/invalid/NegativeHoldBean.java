package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class NegativeHoldBean {

    @Locked(value = "job", holdAtLeast = "PT-1S")
    public void job() {
    }
}
