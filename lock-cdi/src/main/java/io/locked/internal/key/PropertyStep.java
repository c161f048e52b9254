package io.locked.internal.key;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Locale;

/** Reads one property: a public getter ({@code getId}/{@code isActive}), a record-style accessor ({@code id()}) or a public field. */
final class PropertyStep {
    private final String name;
    private final Class<?> type;
    private final MethodHandle reader;

    private PropertyStep(String name, Class<?> type, MethodHandle reader) {
        this.name = name;
        this.type = type;
        this.reader = reader;
    }

    /** @return the step, or null if {@code owner} has no such readable property */
    static PropertyStep find(Class<?> owner, String name) {
        if (name.isEmpty()) {
            return null;
        }
        String capitalised = name.substring(0, 1).toUpperCase(Locale.ROOT) + name.substring(1);
        for (String candidate : new String[] {"get" + capitalised, "is" + capitalised, name}) {
            try {
                Method getter = owner.getMethod(candidate);
                if (getter.getReturnType() != void.class && !Modifier.isStatic(getter.getModifiers())) {
                    return new PropertyStep(name, getter.getReturnType(), unreflect(getter));
                }
            } catch (NoSuchMethodException | IllegalAccessException | RuntimeException notThisOne) {
                // try the next form
            }
        }
        try {
            Field field = owner.getField(name);
            if (!Modifier.isStatic(field.getModifiers())) {
                field.setAccessible(true);
                return new PropertyStep(name, field.getType(), MethodHandles.lookup().unreflectGetter(field));
            }
        } catch (NoSuchFieldException | IllegalAccessException | RuntimeException notAField) {
            // not readable
        }
        return null;
    }

    // a public member of a non-public class (a package-private record, say) needs the accessible flag
    private static MethodHandle unreflect(Method getter) throws IllegalAccessException {
        getter.setAccessible(true);
        return MethodHandles.lookup().unreflect(getter);
    }

    Class<?> type() {
        return type;
    }

    Object read(Object target) {
        try {
            return reader.invoke(target);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("reading property '" + name + "' for a lock key failed", e);
        }
    }
}
