package io.locked.internal.key;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class KeyTemplateTest {

    public record Customer(String name) {
    }

    public static class Order {
        public final long number = 7;
        private final Customer customer;

        Order(Customer customer) {
            this.customer = customer;
        }

        public Customer getCustomer() {
            return customer;
        }

        public boolean isUrgent() {
            return true;
        }
    }

    @SuppressWarnings("unused")
    void ship(Order order, String region, int priority) {
    }

    private static Method ship() throws NoSuchMethodException {
        return KeyTemplateTest.class.getDeclaredMethod("ship", Order.class, String.class, int.class);
    }

    @Test
    void rendersNamesIndicesAndPropertyPaths() throws Exception {
        KeyTemplate template = KeyTemplate.compile(
                "ship:{region}:{2}:{order.number}:{order.customer.name}:{order.urgent}", ship());
        assertEquals("ship:eu:3:7:ada:true", template.render(new Object[] {new Order(new Customer("ada")), "eu", 3}));
    }

    @Test
    void literalOnly() throws Exception {
        assertEquals("nightly", KeyTemplate.compile("nightly", ship()).render(new Object[3]));
    }

    @Test
    void refusesUnknownNamesIndicesAndProperties() throws Exception {
        Method ship = ship();
        assertRefused(() -> KeyTemplate.compile("x:{regoin}", ship), "{regoin}", "names no parameter");
        assertRefused(() -> KeyTemplate.compile("x:{3}", ship), "{3}", "the method has 3 parameter(s)");
        assertRefused(() -> KeyTemplate.compile("x:{order.id}", ship), "has no readable property 'id'");
        assertRefused(() -> KeyTemplate.compile("x:{region", ship), "not closed");
        assertRefused(() -> KeyTemplate.compile("x:{}", ship), "empty placeholder");
        assertRefused(() -> KeyTemplate.compile("x}:{region}", ship), "'}' without '{'");
    }

    @Test
    void nullArgumentOrPropertyIsAClearError() throws Exception {
        KeyTemplate template = KeyTemplate.compile("ship:{order.customer.name}", ship());
        assertRefused(() -> template.render(new Object[] {new Order(null), "eu", 1}), "{order.customer.name} is null");
        assertRefused(() -> template.render(new Object[] {null, "eu", 1}), "{order.customer.name} is null");
    }

    @SuppressWarnings("unused")
    void batch(String[] skus, int[] bins, Object anything) {
    }

    private static Method batch() throws NoSuchMethodException {
        return KeyTemplateTest.class.getDeclaredMethod("batch", String[].class, int[].class, Object.class);
    }

    @Test
    void arraysRenderByContentSoEqualArgumentsGiveEqualKeys() throws Exception {
        KeyTemplate template = KeyTemplate.compile("batch:{skus}:{bins}", batch());
        String first = template.render(new Object[] {new String[] {"a", "b"}, new int[] {1, 2}, null});
        String second = template.render(new Object[] {new String[] {"a", "b"}, new int[] {1, 2}, null});
        assertEquals("batch:[a, b]:[1, 2]", first);
        assertEquals(first, second);
    }

    @Test
    void aValueThatKeepsObjectToStringIsRefused() throws Exception {
        // declared so: refused when the template is compiled, i.e. at deployment
        Method ship = ship();
        assertRefused(() -> KeyTemplate.compile("ship:{order.customer}:{order}", ship), "{order}",
                Order.class.getName(), "does not override toString()");
        // declared Object: only the value can tell, at the call
        KeyTemplate anything = KeyTemplate.compile("x:{anything}", batch());
        assertEquals("x:42", anything.render(new Object[] {null, null, 42}));
        assertRefused(() -> anything.render(new Object[] {null, null, new Object()}), "{anything}", "java.lang.Object",
                "does not override toString()");
    }

    private static void assertRefused(Runnable call, String... parts) {
        IllegalArgumentException error = assertThrows(IllegalArgumentException.class, call::run);
        for (String part : parts) {
            assertTrue(error.getMessage().contains(part), "expected <" + part + "> in <" + error.getMessage() + ">");
        }
    }
}
