package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class PrivateMethodBean {

    public void run() {
        secret();
    }

    @Locked("secret")
    private void secret() {
    }
}
