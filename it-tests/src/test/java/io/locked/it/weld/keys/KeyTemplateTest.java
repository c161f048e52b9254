package io.locked.it.weld.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.event.LockAcquired;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import java.util.List;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** Keys rendered from parameter names, indices, property paths, and the class-plus-method default. */
class KeyTemplateTest {

    @Test
    void rendersEveryTemplateForm() {
        try (WeldContainer container = LockedDeployment.with(KeyedJobs.class).initialize()) {
            KeyedJobs jobs = container.select(KeyedJobs.class).get();
            jobs.ship(new KeyedJobs.Order(42, new KeyedJobs.Customer("ada")));
            jobs.restock("sku-7", 3);
            jobs.nightly();
            List<String> keys = container.select(EventLog.class).get().of(LockAcquired.class).stream()
                    .map(LockAcquired::key).toList();
            assertEquals(List.of("order:42:ada", "stock:sku-7/3", KeyedJobs.class.getName() + "#nightly"), keys);
        }
    }

    @Test
    void nullOnTheKeyPathIsAClearError() {
        try (WeldContainer container = LockedDeployment.with(KeyedJobs.class).initialize()) {
            KeyedJobs jobs = container.select(KeyedJobs.class).get();
            IllegalArgumentException error = assertThrows(IllegalArgumentException.class,
                    () -> jobs.ship(new KeyedJobs.Order(1, null)));
            assertTrue(error.getMessage().contains("{order.customer.name}"), error.getMessage());
        }
    }
}
