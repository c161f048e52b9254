package io.locked.payara.misuse;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A key template naming a parameter the method does not have: the deployment must fail, naming it. */
@ApplicationScoped
public class BadKeyBean {
    @Locked("order:{nope}")
    public void ship(long orderId) {
    }
}
