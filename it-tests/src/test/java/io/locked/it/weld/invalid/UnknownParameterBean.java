package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** Misuse the deployment must refuse. */
@Dependent
public class UnknownParameterBean {

    @Locked("order:{orderid}")
    public void ship(long orderId) {
    }
}
