package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class ModeFromConfigBean {

    @Locked("job")
    public void run() {
    }
}
