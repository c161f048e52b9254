package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class BadPermitsBean {

    @Locked(value = "render", permits = -1)
    public void render() {
    }
}
