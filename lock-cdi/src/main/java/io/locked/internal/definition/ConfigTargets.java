package io.locked.internal.definition;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The classes and methods that per-class and per-method config keys ({@code locked."<class>".<member>},
 * {@code locked."<class>/<method>".<member>}) may name: those of the deployment's {@code @Locked} methods.
 * A key that names another is read by nothing; a misspelt class or method would otherwise go unnoticed.
 */
public final class ConfigTargets {
    private final Set<String> classes = new TreeSet<>();
    private final Set<String> methods = new TreeSet<>();

    /** @param lockedMethods every {@code @Locked} method of the deployment, annotated or reached by its class's annotation */
    public ConfigTargets(Collection<Method> lockedMethods) {
        for (Method method : lockedMethods) {
            String className = method.getDeclaringClass().getName();
            classes.add(className);
            methods.add(className + "/" + method.getName());
        }
    }

    /**
     * @param names every config property name there is
     * @return one warning per key whose class or method has no {@code @Locked} method, naming the nearest that has
     */
    public List<String> unknown(Iterable<String> names) {
        List<String> warnings = new ArrayList<>();
        for (String name : names) {
            String target = LockedKeys.targetPart(name);
            if (target == null) {
                continue;
            }
            boolean method = target.contains("/");
            Set<String> known = method ? methods : classes;
            if (known.contains(target)) {
                continue;
            }
            String nearest = NearestName.among(target, known);
            warnings.add("Locked's config key " + name + " names " + (method ? "a method" : "a class") + " with no @Locked"
                    + " method, so nothing reads it; " + (nearest == null
                    ? "this deployment has no @Locked " + (method ? "method" : "class") + " to name"
                    : "did you mean " + name.replace("\"" + target + "\"", "\"" + nearest + "\"") + "?"));
        }
        return warnings;
    }
}
