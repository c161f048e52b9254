package io.locked.internal.key;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** What a placeholder value may render as. */
class KeyValueTest {
    static final class Order { } // keeps Object.toString()

    @Test
    void anAbstractTypeWhoseSubclassesRenderByValueIsAccepted() {
        // Integer, Long, BigDecimal... all override toString(); Number itself does not
        assertNull(KeyValue.problemWith(Number.class), KeyValue.problemWith(Number.class));
    }

    @Test
    void anArrayOfIdentityRenderedElementsIsRefusedLikeTheElementItself() {
        assertThrows(IllegalArgumentException.class, () -> KeyValue.append(new StringBuilder(), new Order(), "o"));
        // today: "[io.locked...Order@1b6d3586]", a different key per call
        assertThrows(IllegalArgumentException.class,
                () -> KeyValue.append(new StringBuilder(), new Object[] {new Order()}, "orders"));
    }
}
