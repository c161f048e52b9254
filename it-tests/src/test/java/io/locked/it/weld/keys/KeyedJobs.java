package io.locked.it.weld.keys;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** One method per key template form. */
@ApplicationScoped
public class KeyedJobs {

    /** An order, read through a record accessor and a getter. */
    public record Order(long id, Customer customer) {
    }

    /** A customer with a JavaBean getter. */
    public static class Customer {
        private final String name;

        public Customer(String name) {
            this.name = name;
        }

        public String getName() {
            return name;
        }
    }

    @Locked("order:{order.id}:{order.customer.name}")
    public void ship(Order order) {
    }

    @Locked(key = "stock:{0}/{1}")
    public void restock(String sku, int warehouse) {
    }

    @Locked
    public void nightly() {
    }
}
