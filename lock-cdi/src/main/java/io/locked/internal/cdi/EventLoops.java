package io.locked.internal.cdi;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.Executor;

/**
 * What the calling thread of a {@code @Locked} method is, as far as Vert.x (Quarkus' event loops) tells:
 * whether it must not block, and how to get back onto its context once the lock is held, so that the
 * method runs where its caller would have run it (the request's context, Vert.x clients). Vert.x is reached
 * by reflection: an application without it pays one failed class lookup.
 */
final class EventLoops {
    private static final Method ON_EVENT_LOOP;
    private static final Method CURRENT_CONTEXT;
    private static final Method RUN_ON_CONTEXT;
    private static final Class<?> HANDLER;

    static {
        Method onEventLoop = null;
        Method currentContext = null;
        Method runOnContext = null;
        Class<?> handler = null;
        try {
            ClassLoader loader = EventLoops.class.getClassLoader();
            Class<?> context = Class.forName("io.vertx.core.Context", false, loader);
            handler = Class.forName("io.vertx.core.Handler", false, loader);
            onEventLoop = context.getMethod("isOnEventLoopThread");
            currentContext = Class.forName("io.vertx.core.Vertx", false, loader).getMethod("currentContext");
            runOnContext = context.getMethod("runOnContext", handler);
        } catch (ReflectiveOperationException | LinkageError noVertx) {
            onEventLoop = null;
        }
        ON_EVENT_LOOP = onEventLoop;
        CURRENT_CONTEXT = currentContext;
        RUN_ON_CONTEXT = runOnContext;
        HANDLER = handler;
    }

    private EventLoops() {
    }

    /** @return whether the calling thread is a Vert.x event loop, where a blocking call stalls every request it serves */
    static boolean callerMustNotBlock() {
        return ON_EVENT_LOOP != null && (Boolean) invoke(ON_EVENT_LOOP, null);
    }

    /**
     * @return an executor that runs a task on the calling thread's Vert.x context (its event loop, or the
     *         worker it runs on), or null when the caller has no such context: then the task runs on the
     *         thread that got the lock
     */
    static Executor callersContext() {
        Object context = CURRENT_CONTEXT == null ? null : invoke(CURRENT_CONTEXT, null);
        if (context == null) {
            return null;
        }
        return task -> invoke(RUN_ON_CONTEXT, context, Proxy.newProxyInstance(HANDLER.getClassLoader(),
                new Class<?>[] {HANDLER}, (proxy, method, arguments) -> switch (method.getName()) {
                    case "handle" -> {
                        task.run();
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == arguments[0];
                    default -> "Locked's return to " + context;
                }));
    }

    private static Object invoke(Method method, Object target, Object... arguments) {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause);
        } catch (IllegalAccessException refused) {
            throw new IllegalStateException(refused);
        }
    }
}
