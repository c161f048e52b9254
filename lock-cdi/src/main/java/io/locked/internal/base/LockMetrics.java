package io.locked.internal.base;

import io.locked.api.LockMode;

/**
 * Where the core reports what its locks do, for metrics. The core knows no metrics library:
 * {@link io.locked.internal.metrics} adapts this to Micrometer when the application has it.
 */
public interface LockMetrics {

    /** Reports nothing: the choice when Micrometer is absent. */
    LockMetrics NONE = (name, mode, kind) -> LockMeter.NONE;

    /**
     * @param name the lock's name: a key template or a name the caller chose, never a rendered key
     *             (one set of meters per name)
     * @param mode the lock mode
     * @param kind exclusive, or a permit
     * @return the meter for the lock's acquisitions; called once per acquisition, so keep it cheap
     */
    LockMeter forLock(String name, LockMode mode, LockKind kind);
}
