package io.locked.api;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method under a distributed lock: across every JVM sharing the lock table, at most one
 * call per key runs at a time. On a class, applies to every business method of the bean.
 *
 * <pre>{@code
 * @Locked("order:{orderId}")
 * public void ship(long orderId) { ... }
 *
 * @Locked(value = "report:{day}", mode = LockMode.OPTIMISTIC, maxWait = "0s", onTimeout = OnTimeout.SKIP)
 * public void nightly(LocalDate day) { ... }
 * }</pre>
 *
 * <p>The lock is taken outside any transaction of the method ({@code @Locked} runs before
 * {@code @Transactional}), so a holder's writes are committed before the next holder enters.
 * Every member can be overridden by MicroProfile Config, most specific first:
 * {@code locked."<class>/<method>".<member>}, {@code locked."<class>".<member>},
 * {@code locked.default.<member>}; members {@code mode}, {@code max-wait}, {@code lease},
 * {@code hold-at-least}, {@code lock-delay}, {@code permits}, {@code type}, {@code on-timeout} and {@code enabled} ({@code maxWait},
 * {@code holdAtLeast}, {@code lockDelay} and {@code onTimeout}, as the annotation names them, are read
 * too). Misuse fails the deployment, naming class, method and member.
 */
@InterceptorBinding
@Inherited
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface Locked {

    /**
     * The key template, same as {@link #key()}. Placeholders name a parameter ({@code {orderId}}; the
     * build must compile with {@code -parameters}), give its index ({@code {0}}), or follow simple
     * properties from it ({@code {order.id}}: getters, record accessors or public fields). Empty:
     * the declaring class and method, {@code com.acme.Jobs#nightly}. The rendered key must be at
     * most 255 characters and not blank.
     *
     * @return the key template
     */
    @Nonbinding
    String value() default "";

    /**
     * The key template, for those who prefer to name it; see {@link #value()}. Set one or the other.
     *
     * @return the key template
     */
    @Nonbinding
    String key() default "";

    /**
     * @return the lock mode; default {@link LockMode#PESSIMISTIC}
     */
    @Nonbinding
    LockMode mode() default LockMode.PESSIMISTIC;

    /**
     * How long to wait for the lock: ISO-8601 ({@code PT5S}) or a number with a unit ({@code 250ms},
     * {@code 5s}, {@code 2m}, {@code 1h}); {@code 0s} tries once. Default {@code 10s}. The config
     * member is {@code max-wait} ({@code maxWait} is read too).
     *
     * @return the wait
     */
    @Nonbinding
    String maxWait() default "10s";

    /**
     * The optimistic lease, renewed while the method runs; same formats as {@link #maxWait()}; positive.
     * Ignored by pessimistic locks. Default {@code 30s}.
     *
     * @return the lease
     */
    @Nonbinding
    String lease() default "30s";

    /**
     * How long after the acquisition the key stays taken, even if the method returned sooner: the
     * release leaves the key taken until then, on the database's clock, in both modes. A job run
     * under it runs at most once per that period, however many instances trigger it; pick it a
     * little shorter than the job's period, and longer than the clock differences between the
     * instances' triggers. Same formats as {@link #maxWait()}; default {@code 0s}: the release frees
     * the key.
     *
     * @return the minimum hold
     */
    @Nonbinding
    String holdAtLeast() default "0s";

    /**
     * How long the key stays taken after an optimistic holder stopped renewing its lease without
     * releasing it (its JVM was killed, paused, or cut off from the database), past that lease's end,
     * before a new holder may take it: for resources that cannot check fencing tokens, where the old
     * holder may still be at work. A release frees the key at once. {@link LockMode#OPTIMISTIC} only.
     * Same formats as {@link #maxWait()}; default {@code 0s}.
     *
     * @return the lock-delay
     */
    @Nonbinding
    String lockDelay() default "0s";

    /**
     * How many calls of one key may run at once, across every JVM: 0 (the default) for the key's
     * exclusive lock, at most one call; 1 to {@value LockRequest#MAX_PERMITS} for that many permits,
     * each held like an exclusive lock of its own slot ({@link LockRequest#permits()}). A key's permits
     * are counted apart from its exclusive lock.
     *
     * @return the permits, or 0 for an exclusive lock
     */
    @Nonbinding
    int permits() default 0;

    /**
     * The key's exclusive lock (the default), or a reader or the writer of its read/write lock: many
     * {@link LockType#READ} calls of a key run at once, a {@link LockType#WRITE} call runs alone, and
     * once a writer waits new readers wait behind it. A read inside a write of the same key on the
     * same thread is allowed; a write inside a read fails at once. Not with {@link #permits()}.
     *
     * @return the type; default {@link LockType#EXCLUSIVE}
     */
    @Nonbinding
    LockType type() default LockType.EXCLUSIVE;

    /**
     * What happens when the wait runs out. {@link OnTimeout#SKIP} needs a method whose result can
     * be "nothing": {@code void}, {@code Void}, {@code Optional}, or {@code CompletionStage<Void>}.
     *
     * @return the policy; default {@link OnTimeout#THROW}
     */
    @Nonbinding
    OnTimeout onTimeout() default OnTimeout.THROW;
}
