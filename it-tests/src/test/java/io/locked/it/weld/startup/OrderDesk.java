package io.locked.it.weld.startup;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** A bean as the user had it: one lock per order. */
@ApplicationScoped
public class OrderDesk {
    @Locked("order:{id}")
    public String place(long id) {
        return "placed " + id;
    }
}
