package io.locked.internal.key;

import java.lang.reflect.Modifier;
import java.util.Arrays;

/**
 * Turns a placeholder's value into key text that means the same in every call and every JVM:
 * arrays by their content (element by element), everything else by its own {@code toString()}.
 * Collections render through their own {@code toString()}, so their elements are not checked. A value whose class keeps
 * {@code Object.toString()} ("Order@1b6d3586") would give a different key per instance and per
 * JVM, so that two callers for the same order would never exclude each other: it is refused.
 */
final class KeyValue {
    private static final ClassValue<Boolean> HAS_OWN_TO_STRING = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return hasOwnToString(type);
        }
    };

    private KeyValue() {
    }

    /**
     * @param type a placeholder's declared type
     * @return why values of that type cannot make a key, or null if they can (or only a value can tell)
     */
    static String problemWith(Class<?> type) {
        // an interface, an abstract class (Number) or Object: only the value's own class can tell
        if (type.isArray() || type.isPrimitive() || type.isInterface() || Modifier.isAbstract(type.getModifiers())
                || type == Object.class) {
            return null;
        }
        return hasOwnToString(type) ? null : type.getName() + " does not override toString(), so each instance would"
                + " render a different key; use a property path such as {order.id}, or override toString()";
    }

    static void append(StringBuilder key, Object value, String expression) {
        if (value instanceof Object[] elements) {
            // element by element, so that an element rendered by identity is refused like a value would be
            key.append('[');
            for (int i = 0; i < elements.length; i++) {
                if (i > 0) {
                    key.append(", ");
                }
                if (elements[i] == null) {
                    key.append("null");
                } else {
                    append(key, elements[i], expression);
                }
            }
            key.append(']');
            return;
        }
        if (value.getClass().isArray()) {
            key.append(primitiveArray(value));
            return;
        }
        if (!HAS_OWN_TO_STRING.get(value.getClass())) {
            throw new IllegalArgumentException("Lock key placeholder {" + expression + "} is a " + value.getClass().getName()
                    + ", which does not override toString(): each instance would render a different key");
        }
        key.append(value);
    }

    private static boolean hasOwnToString(Class<?> type) {
        try {
            return type.getMethod("toString").getDeclaringClass() != Object.class;
        } catch (NoSuchMethodException impossible) {
            return false;
        }
    }

    private static String primitiveArray(Object array) {
        if (array instanceof int[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof long[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof char[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof byte[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof short[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof boolean[] a) {
            return Arrays.toString(a);
        }
        if (array instanceof float[] a) {
            return Arrays.toString(a);
        }
        return Arrays.toString((double[]) array);
    }
}
