package io.locked.it.weld.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.event.LockAcquired;
import io.locked.internal.cdi.LockEvents;
import io.locked.internal.cdi.LockManagerProducer;
import io.locked.internal.cdi.LockedExtension;
import io.locked.internal.cdi.LockedInterceptor;
import io.locked.internal.cdi.LockedMethods;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.TestConfig;
import io.locked.it.weld.skip.Cleaner;
import io.locked.jpa.cdi.JpaLockStoreProducer;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Without a @LockStore producer, the lock store is the persistence unit named by locked.persistence-unit. */
class PersistenceUnitWiringTest {

    @AfterEach
    void clearConfig() {
        TestConfig.clear();
    }

    private static Weld withoutLockStoreProducer() {
        return new Weld().disableDiscovery().addExtension(new LockedExtension())
                .addBeanClasses(LockedInterceptor.class, LockedMethods.class, LockEvents.class, LockManagerProducer.class,
                        JpaLockStoreProducer.class, EventLog.class, Cleaner.class);
    }

    @Test
    void namedPersistenceUnitHoldsTheLocks() {
        TestConfig.set("locked.persistence-unit", "locked-it-named");
        TestConfig.set("locked.create-table", "true");
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer());
    }

    @Test
    void theReadmesProducerOfAUnitConfiguredByUrlHoldsTheLocks() {
        TestConfig.set("locked.create-table", "true");
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer().addBeanClass(ReadmeLockStore.class));
    }

    @Test
    void theReadmesProducerOfAnEclipseLinkUnitConfiguredByUrlHoldsTheLocksThroughJpa() {
        // Hibernate is on this class path too: Locked must not take the unit for a Hibernate one
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer().addBeanClass(EclipseLinkLockStore.class));
    }

    private static void assertALockedMethodRunsUnderItsLock(Weld deployment) {
        try (WeldContainer container = deployment.initialize()) {
            container.select(Cleaner.class).get().clean();
            assertEquals(1, container.select(Cleaner.class).get().runs());
            assertEquals(1, container.select(EventLog.class).get().of(LockAcquired.class).size());
        }
    }

    @Test
    void theContainersDefaultUnitHoldsTheLocksWithoutAnySetting() {
        TestConfig.set("locked.create-table", "true");
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer().addBeanClass(ContainerUnits.DefaultUnit.class));
    }

    @Test
    void theUnitNamedByConfigurationIsTheContainersUnitOfThatName() {
        // persistence.xml has no unit "locks": only the container's bean of that name can hold the locks
        TestConfig.set("locked.persistence-unit", "locks");
        TestConfig.set("locked.create-table", "true");
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer()
                .addBeanClasses(ContainerUnits.NamedUnit.class, ContainerUnits.DefaultUnit.class));
    }

    @Test
    void anUnknownUnitNameFailsTheDeploymentNamingTheKeyAndTheName() {
        TestConfig.set("locked.persistence-unit", "no-such-unit");
        RuntimeException failure = assertThrows(RuntimeException.class, () -> withoutLockStoreProducer().initialize().close());
        String messages = messages(failure);
        assertTrue(messages.contains("locked.persistence-unit=no-such-unit: no such persistence unit could be started"), messages);
    }

    @Test
    void theJpaPathChosenByConfigurationHoldsTheLocks() {
        TestConfig.set("locked.persistence-unit", "locked-it-named");
        TestConfig.set("locked.create-table", "true");
        TestConfig.set("locked.statements", "jpa");
        assertALockedMethodRunsUnderItsLock(withoutLockStoreProducer());
    }

    @Test
    void anUnknownStatementsSettingFailsTheDeploymentNamingTheKeyAndTheValues() {
        TestConfig.set("locked.persistence-unit", "locked-it-named");
        TestConfig.set("locked.statements", "fast");
        RuntimeException failure = assertThrows(RuntimeException.class, () -> withoutLockStoreProducer().initialize().close());
        String messages = messages(failure);
        assertTrue(messages.contains("locked.statements must be auto, jpa or native, was 'fast'"), messages);
    }

    @Test
    void aGaleraSettingThatIsNotABooleanFailsTheDeploymentNamingTheKey() {
        TestConfig.set("locked.persistence-unit", "locked-it-named");
        TestConfig.set("locked.galera.single-writer", "yes");
        RuntimeException failure = assertThrows(RuntimeException.class, () -> withoutLockStoreProducer().initialize().close());
        String messages = messages(failure);
        assertTrue(messages.contains("locked.galera.single-writer must be true or false, was 'yes'"), messages);
    }

    @Test
    void aStandbyWaitOnADatabaseOtherThanPostgreSqlFailsTheDeploymentNamingTheKey() {
        TestConfig.set("locked.persistence-unit", "locked-it-named");
        TestConfig.set("locked.postgresql.synchronous-commit", "remote_apply");
        RuntimeException failure = assertThrows(RuntimeException.class, () -> withoutLockStoreProducer().initialize().close());
        String messages = messages(failure);
        assertTrue(messages.contains("locked.postgresql.synchronous-commit=remote_apply applies to PostgreSQL only"), messages);
    }

    @Test
    void noLockStoreAtAllFailsTheDeployment() {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> withoutLockStoreProducer().initialize().close());
        String messages = messages(failure);
        assertTrue(messages.contains("produce one qualified @LockStore, or set locked.persistence-unit"), messages);
    }

    private static String messages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }
}
