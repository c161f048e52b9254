package io.locked.internal.definition;

import io.locked.api.LockMode;
import io.locked.api.LockRequest;
import io.locked.api.LockType;
import io.locked.api.Locked;
import io.locked.api.OnTimeout;
import io.locked.internal.definition.LockedKeys.Member;
import io.locked.internal.key.KeyTemplate;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Turns {@code @Locked} (on the method, else on the class) plus config overrides into
 * {@link LockedSettings}, or into the list of definition errors that fail the deployment. The
 * same code serves the portable extension, the build-compatible extension and the runtime.
 */
public final class LockedDefinitions {
    private LockedDefinitions() {
    }

    /** @return the {@code @Locked} that applies to the method (its own, else its class's), or null */
    public static Locked lockedOf(Class<?> beanClass, Method method) {
        Locked onMethod = method.getAnnotation(Locked.class);
        return onMethod != null ? onMethod : beanClass.getAnnotation(Locked.class);
    }

    /** @return whether {@code @Locked} is on the method itself rather than inherited from its class */
    public static boolean isOnMethod(Method method) {
        return method.isAnnotationPresent(Locked.class);
    }

    /**
     * Checks whether a class-level {@code @Locked} reaches this method at all: private and static
     * methods are not business methods, so a class annotation leaves them alone.
     */
    public static boolean isBusinessMethod(Method method) {
        int modifiers = method.getModifiers();
        return !Modifier.isPrivate(modifiers) && !Modifier.isStatic(modifiers)
                && !method.isSynthetic() && !method.isBridge() && method.getDeclaringClass() != Object.class;
    }

    /**
     * @param beanClass the bean class carrying or inheriting the annotation
     * @param method    the method (annotated, or a business method of an annotated class)
     * @param config    overrides
     * @return the settings, or the errors
     */
    public static Resolution resolve(Class<?> beanClass, Method method, SettingLookup config) {
        String where = describe(method);
        List<String> errors = new ArrayList<>();
        Locked locked = lockedOf(beanClass, method);
        if (locked == null) {
            return Resolution.failed(List.of("No @Locked on " + where));
        }
        int modifiers = method.getModifiers();
        if (isOnMethod(method) || !Modifier.isPrivate(modifiers) && !Modifier.isStatic(modifiers)) {
            if (Modifier.isPrivate(modifiers)) {
                errors.add("Invalid @Locked on " + where + ": a private method cannot be intercepted; make it"
                        + " package-private, protected or public");
            }
            if (Modifier.isStatic(modifiers)) {
                errors.add("Invalid @Locked on " + where + ": a static method cannot be intercepted");
            }
            if (Modifier.isFinal(modifiers) || Modifier.isFinal(method.getDeclaringClass().getModifiers())) {
                errors.add("Invalid @Locked on " + where + ": " + (Modifier.isFinal(modifiers)
                        ? "a final method cannot be intercepted; remove final from the method"
                        : "a method of a final class cannot be intercepted; remove final from the class "
                        + method.getDeclaringClass().getSimpleName()));
            }
        }

        Overrides overrides = new Overrides(method, config);
        KeyTemplate key = keyTemplate(locked, method, where, errors);
        LockMode mode = overrides.value(Member.MODE, locked.mode(), text -> parseEnum(LockMode.class, text), where, errors);
        Duration maxWait = overrides.value(Member.MAX_WAIT, null, LockedDefinitions::wait, where, errors, locked.maxWait());
        Duration lease = overrides.value(Member.LEASE, null, LockedDefinitions::lease, where, errors, locked.lease());
        Duration holdAtLeast = overrides.value(Member.HOLD_AT_LEAST, null, LockedDefinitions::zeroOrMore, where, errors,
                locked.holdAtLeast());
        Duration lockDelay = overrides.value(Member.LOCK_DELAY, null, LockedDefinitions::zeroOrMore, where, errors,
                locked.lockDelay());
        Integer permits = overrides.value(Member.PERMITS, null, LockedDefinitions::permits, where, errors,
                String.valueOf(locked.permits()));
        LockType type = overrides.value(Member.TYPE, locked.type(), text -> parseEnum(LockType.class, text), where, errors);
        OnTimeout onTimeout = overrides.value(Member.ON_TIMEOUT, locked.onTimeout(), text -> parseEnum(OnTimeout.class, text),
                where, errors);
        Boolean enabled = overrides.value(Member.ENABLED, Boolean.TRUE, LockedDefinitions::parseBoolean, where, errors);

        ReturnKind returnKind = ReturnKind.of(method);
        if (returnKind == ReturnKind.UNSUPPORTED && ReturnKind.MULTI_TYPE.equals(ReturnKind.asyncKindOf(method.getReturnType()))) {
            errors.add("Invalid @Locked on " + where + ": it returns " + method.getGenericReturnType().getTypeName()
                    + ", a stream that may never end, and Locked does not hold a lock for a stream; return a Uni"
                    + " (the lock is held until it terminates), or lock each item's work inside the stream");
        } else if (returnKind == ReturnKind.UNSUPPORTED) {
            errors.add("Invalid @Locked on " + where + ": it returns " + method.getGenericReturnType().getTypeName()
                    + ", whose work may go on after the method returns, and Locked cannot hold the lock until it ends;"
                    + " return CompletionStage, CompletableFuture or Mutiny's Uni (the lock is then held until it completes),"
                    + " or lock inside the asynchronous work");
        }
        if (onTimeout != OnTimeout.THROW && !returnKind.canSkip()) {
            errors.add("Invalid @Locked." + Member.ON_TIMEOUT.annotationName() + " on " + where + ": " + onTimeout + " needs a method returning void, Void, Optional,"
                    + " CompletionStage<Void> or Uni<Void>, but it returns " + method.getGenericReturnType().getTypeName());
        }
        if (lockDelay != null && !lockDelay.isZero() && mode == LockMode.PESSIMISTIC) {
            errors.add("Invalid @Locked." + Member.LOCK_DELAY.annotationName() + " on " + where + ": needs mode OPTIMISTIC; a pessimistic holder whose"
                    + " session dies leaves no trace in the row to delay the next holder by");
        }
        if (type == LockType.READ) {
            for (Member member : List.of(Member.HOLD_AT_LEAST, Member.LOCK_DELAY)) {
                Duration set = member == Member.HOLD_AT_LEAST ? holdAtLeast : lockDelay;
                if (set != null && !set.isZero()) {
                    errors.add("Invalid @Locked." + member.annotationName() + " on " + where + ": needs type EXCLUSIVE or WRITE,"
                            + " was READ; a reader joins its JVM's group of readers, whose slot the group's first reader took,"
                            + " so it would keep that slot, not the reader's own hold; remove " + member.annotationName()
                            + " or lock the job EXCLUSIVE");
                }
            }
        }
        if (permits != null && permits > 0 && type != null && type != LockType.EXCLUSIVE) {
            errors.add("Invalid @Locked." + Member.PERMITS.annotationName() + " on " + where + ": permits need type EXCLUSIVE,"
                    + " was " + type + "; a read/write lock's readers already share the key");
        }
        if (!errors.isEmpty()) {
            return Resolution.failed(errors);
        }
        return Resolution.of(new LockedSettings(where, key, mode, maxWait, lease, holdAtLeast, lockDelay, permits, type, onTimeout, enabled,
                returnKind));
    }

    private static KeyTemplate keyTemplate(Locked locked, Method method, String where, List<String> errors) {
        String value = locked.value();
        String key = locked.key();
        if (!value.isEmpty() && !key.isEmpty() && !value.equals(key)) {
            errors.add("Invalid @Locked.key on " + where + ": set value or key, not both ('" + value + "' and '" + key + "')");
            return null;
        }
        String text = !value.isEmpty() ? value : !key.isEmpty() ? key : defaultKey(method);
        if (text.isBlank()) {
            errors.add("Invalid @Locked.key on " + where + ": must not be blank");
            return null;
        }
        if (text.length() > LockRequest.MAX_KEY_LENGTH) {
            errors.add("Invalid @Locked.key on " + where + ": longer than " + LockRequest.MAX_KEY_LENGTH + " characters");
            return null;
        }
        try {
            return KeyTemplate.compile(text, method);
        } catch (IllegalArgumentException e) {
            errors.add("Invalid @Locked.key on " + where + ": " + e.getMessage());
            return null;
        }
    }

    /** @return the key of a method with no template: {@code com.acme.Jobs#nightly} */
    public static String defaultKey(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName();
    }

    /** @return {@code com.acme.Jobs#nightly()} */
    public static String describe(Method method) {
        return method.getDeclaringClass().getName() + "#" + method.getName() + "()";
    }

    private static Duration wait(String text) {
        Duration wait = Durations.parse(text);
        if (wait.isNegative()) {
            throw new IllegalArgumentException("negative (" + text.trim() + "); it must be zero (try once) or more");
        }
        return wait;
    }

    // a duration in a message as the user wrote it ("0s", not PT0S)
    private static Duration lease(String text) {
        Duration lease = Durations.parse(text);
        if (lease.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("must be at most " + LockRequest.MAX_LEASE.toDays() + " days, was " + text.trim());
        }
        if (lease.isNegative()) {
            throw new IllegalArgumentException("negative (" + text.trim() + "); it must be at least 1ms");
        }
        if (lease.toMillis() < 1) {
            throw new IllegalArgumentException("must be at least 1ms, was " + text.trim());
        }
        return lease;
    }

    private static Integer permits(String text) {
        int permits;
        try {
            permits = Integer.parseInt(text.trim());
        } catch (NumberFormatException notANumber) {
            throw new IllegalArgumentException("must be a whole number, was '" + text + "'");
        }
        if (permits < 0 || permits > LockRequest.MAX_PERMITS) {
            throw new IllegalArgumentException("must be 0 (an exclusive lock) or 1 to " + LockRequest.MAX_PERMITS
                    + ", was " + permits);
        }
        return permits;
    }

    private static Duration zeroOrMore(String text) {
        Duration hold = Durations.parse(text);
        if (hold.isNegative()) {
            throw new IllegalArgumentException("must be zero or positive, was " + text.trim());
        }
        if (hold.compareTo(LockRequest.MAX_LEASE) > 0) {
            throw new IllegalArgumentException("must be at most " + LockRequest.MAX_LEASE.toDays() + " days, was " + text.trim());
        }
        return hold;
    }

    private static <E extends Enum<E>> E parseEnum(Class<E> type, String text) {
        String normalised = text.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        for (E constant : type.getEnumConstants()) {
            if (constant.name().equals(normalised)) {
                return constant;
            }
        }
        throw new IllegalArgumentException("unknown value '" + text + "', expected one of "
                + List.of(type.getEnumConstants()).toString().toLowerCase(Locale.ROOT));
    }

    private static Boolean parseBoolean(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("must be true or false, was '" + text + "'");
        };
    }

    /** The config names of one method, most specific first, each member in every spelling config accepts. */
    private static final class Overrides {
        private final List<String> prefixes;
        private final SettingLookup config;

        Overrides(Method method, SettingLookup config) {
            String className = method.getDeclaringClass().getName();
            this.prefixes = List.of(LockedKeys.PREFIX + "\"" + className + "/" + method.getName() + "\".",
                    LockedKeys.PREFIX + "\"" + className + "\".", LockedKeys.DEFAULT_PREFIX);
            this.config = config;
        }

        <T> T value(Member member, T annotated, Function<String, T> parse, String where, List<String> errors) {
            return value(member, annotated, parse, where, errors, null);
        }

        // annotationText: the annotation's own text for members parsed from strings, checked like config values
        <T> T value(Member member, T annotated, Function<String, T> parse, String where, List<String> errors,
                    String annotationText) {
            for (String prefix : prefixes) {
                for (String spelling : member.spellings()) {
                    String name = prefix + spelling;
                    Optional<String> text = config.get(name);
                    if (text.isPresent()) {
                        try {
                            return parse.apply(text.get());
                        } catch (IllegalArgumentException e) {
                            errors.add("Invalid @Locked." + member.annotationName() + " on " + where + " from config " + name
                                    + "=" + text.get() + ": " + e.getMessage());
                            return annotated;
                        }
                    }
                }
            }
            if (annotationText != null) {
                try {
                    return parse.apply(annotationText);
                } catch (IllegalArgumentException e) {
                    errors.add("Invalid @Locked." + member.annotationName() + " on " + where + ": " + e.getMessage());
                }
            }
            return annotated;
        }
    }
}
