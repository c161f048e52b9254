package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class BadDurationBean {

    @Locked(value = "report", maxWait = "5 parsecs")
    public void report() {
    }
}
