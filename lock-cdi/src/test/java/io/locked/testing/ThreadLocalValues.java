package io.locked.testing;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

/**
 * The values a thread keeps in its thread-locals, read the way a server's leak check reads them at undeploy:
 * an entry whose {@code ThreadLocal} is gone still holds its value until the thread touches the map again.
 * Needs {@code --add-opens java.base/java.lang=ALL-UNNAMED} (lock-cdi's surefire sets it).
 */
public final class ThreadLocalValues {
    private ThreadLocalValues() {
    }

    /** @return the classes of the thread's thread-local values (inheritable ones too) that are Locked's */
    public static List<String> lockedValuesOf(Thread thread) {
        List<String> found = new ArrayList<>();
        for (String mapField : List.of("threadLocals", "inheritableThreadLocals")) {
            for (Object value : values(read(thread, Thread.class, mapField))) {
                if (value != null && value.getClass().getName().startsWith("io.locked.")) {
                    found.add(mapField + ": " + value.getClass().getName());
                }
            }
        }
        return found;
    }

    private static List<Object> values(Object map) {
        List<Object> values = new ArrayList<>();
        if (map == null) {
            return values;
        }
        Object[] table = (Object[]) read(map, map.getClass(), "table");
        for (Object entry : table) {
            if (entry != null) {
                values.add(read(entry, entry.getClass(), "value"));
            }
        }
        return values;
    }

    private static Object read(Object target, Class<?> type, String name) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(target);
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            throw new AssertionError("cannot read " + type.getName() + "." + name + " (is java.lang opened to the tests?)",
                    unreadable);
        }
    }
}
