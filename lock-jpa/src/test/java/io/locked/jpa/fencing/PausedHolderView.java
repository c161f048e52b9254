package io.locked.jpa.fencing;

import io.locked.api.LockHandle;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;

/**
 * A holder's handle as its own code sees it right after a pause (GC, SIGSTOP) or a cut-off: the
 * watchdog has not run yet, so the handle still says it is valid, though the lock was taken over.
 * Only a check at the resource can stop what this holder writes next.
 */
public final class PausedHolderView {
    private PausedHolderView() {
    }

    /**
     * @param handle the real handle of the paused holder
     * @return the same handle, except that {@code isValid()} answers true
     */
    public static LockHandle of(LockHandle handle) {
        // a proxy rather than a class: it keeps up with members the API may gain
        return (LockHandle) Proxy.newProxyInstance(LockHandle.class.getClassLoader(), new Class<?>[] {LockHandle.class},
                (proxy, method, arguments) -> {
                    if (method.getName().equals("isValid") && method.getParameterCount() == 0) {
                        return true;
                    }
                    try {
                        return method.invoke(handle, arguments);
                    } catch (InvocationTargetException thrown) {
                        throw thrown.getCause();
                    }
                });
    }
}
