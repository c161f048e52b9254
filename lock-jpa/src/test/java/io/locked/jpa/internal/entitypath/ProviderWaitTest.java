package io.locked.jpa.internal.entitypath;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The lock timeout hint the JPA path gives the provider. Where the provider bounds a row lock's wait in
 * whole seconds (MariaDB, MySQL and H2: {@code FOR UPDATE WAIT n}), Hibernate 7 rounds the hint up, so
 * that a wait of 1.5 s lasted 2.04 s on MariaDB (measured on Hibernate 7.4.15, where 6.6 rounded down
 * and waited 1.50 s): the path hands over whole seconds only, rounded down, and the manager tries again
 * for the rest. Checked on the hint itself rather than on a measured wait, which would depend on the
 * machine's speed.
 */
class ProviderWaitTest {

    @Test
    void whereTheProviderWaitsInWholeSecondsTheHintIsTheWholeSecondsOfTheWait() {
        assertEquals(1000, EntityRows.providerWait(1500, true));
        assertEquals(2000, EntityRows.providerWait(2000, true));
        assertEquals(0, EntityRows.providerWait(999, true), "under a second: no wait, the manager asks again");
        assertEquals(0, EntityRows.providerWait(0, true));
    }

    @Test
    void elsewhereTheHintIsTheWait() {
        assertEquals(1500, EntityRows.providerWait(1500, false));
        assertEquals(Integer.MAX_VALUE, EntityRows.providerWait(Long.MAX_VALUE, false));
    }
}
