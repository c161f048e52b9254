package io.locked.it.weld.startup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.it.weld.TestConfig;
import io.locked.it.weld.health.MissingTableLockStore;
import io.locked.jpa.cdi.JpaLockStoreProducer;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the user did on Weld SE: an application with a {@code @Locked} bean on a database that
 * has no lock table. It refuses to start, naming the script for the database, how to print it, and
 * {@code locked.create-table}; rather than boot and fail every call with "Table ... doesn't exist".
 */
class StartupWithoutLockTableTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    private static Weld deployment() {
        return new Weld().disableDiscovery().addExtension(new LockedExtension())
                .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        JpaLockStoreProducer.class, MissingTableLockStore.class, OrderDesk.class);
    }

    @Test
    void refusesToStartNamingTheScriptHowToPrintItAndCreateTable() {
        RuntimeException refused = assertThrows(RuntimeException.class, () -> {
            try (WeldContainer booted = deployment().initialize()) {
                booted.select(OrderDesk.class).get().place(42); // what the user saw fail: the first call
            }
        });
        String messages = messages(refused);
        for (String part : new String[] {"The lock table locked_lock does not exist", "META-INF/locked/schema-h2.sql",
                "java -cp lock-jpa.jar io.locked.jpa.LockSchema h2", "locked.create-table=true"}) {
            assertTrue(messages.contains(part), "expected <" + part + "> in:\n" + messages);
        }
        assertTrue(!messages.contains("Lock store unavailable for 'order:42'"), "it booted and failed the call:\n" + messages);
    }

    @Test
    void startsAndLocksWithCreateTable() {
        TestConfig.set("locked.create-table", "true");
        try (WeldContainer booted = deployment().initialize()) {
            assertEquals("placed 42", booted.select(OrderDesk.class).get().place(42));
        }
    }

    private static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t).append('\n');
        }
        return messages.toString();
    }
}
