package io.locked.jpa.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

/** JDBC objects wrapped by a test's code, which sees each call before it passes it on. */
final class JdbcProxies {
    private JdbcProxies() {
    }

    /** A call on the wrapped object, which may throw what the method declares. */
    @FunctionalInterface
    interface Call {
        Object on(Method method, Object[] args) throws Exception;
    }

    static <T> T proxy(Class<T> type, Call call) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return call.on(method, args);
            } catch (InvocationTargetException thrown) {
                throw thrown.getCause();
            }
        };
        return type.cast(Proxy.newProxyInstance(JdbcProxies.class.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
