package io.locked.it.weld.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.Dependent;

/** A key from a class without toString(): "Order@1b6d3586" differs per instance and per JVM. */
@Dependent
public class IdentityKeyBean {

    /** An order that only has identity. */
    public static class Order {
    }

    @Locked("ship:{order}")
    public void ship(Order order) {
    }
}
