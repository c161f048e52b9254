package io.locked.api;

import jakarta.inject.Qualifier;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the bean that holds the lock table, for example the application's producer of the
 * {@code EntityManagerFactory} whose persistence unit lists {@code io.locked.jpa.LockRow}:
 *
 * <pre>{@code
 * @Produces @LockStore @ApplicationScoped
 * EntityManagerFactory lockStore() { return Persistence.createEntityManagerFactory("app"); }
 * }</pre>
 */
@Qualifier
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.PARAMETER, ElementType.TYPE})
public @interface LockStore {
}
