package io.locked.jpa.internal.transaction;

import jakarta.transaction.TransactionManager;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * Reads the timeout the application set for its thread's next transactions, so that the lock's own
 * transaction, begun with a timeout of its own, can give it back. JTA can set that timeout but not
 * read it; Narayana (Quarkus, WildFly) reads it with {@code getTimeout()}, other managers with
 * {@code getTransactionTimeout()}. Where neither exists, 0 (the manager's default) is what comes back.
 */
public final class ThreadTransactionTimeout {
    private static final ThreadTransactionTimeout UNREADABLE = new ThreadTransactionTimeout(null);
    private final Method getter;

    private ThreadTransactionTimeout(Method getter) {
        this.getter = getter;
    }

    static ThreadTransactionTimeout of(TransactionManager transactions) {
        for (String name : new String[] {"getTimeout", "getTransactionTimeout"}) {
            try {
                Method getter = transactions.getClass().getMethod(name);
                if (getter.getReturnType() == int.class && Modifier.isPublic(getter.getDeclaringClass().getModifiers())) {
                    return new ThreadTransactionTimeout(getter);
                }
            } catch (NoSuchMethodException absent) {
                // try the next name
            }
        }
        return UNREADABLE;
    }

    /** @return the thread's timeout in seconds, 0 for the manager's default or when it cannot be read */
    int read(TransactionManager transactions) {
        if (getter == null) {
            return 0;
        }
        try {
            return Math.max(0, (int) getter.invoke(transactions));
        } catch (ReflectiveOperationException | RuntimeException unreadable) {
            return 0;
        }
    }
}
