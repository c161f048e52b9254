/**
 * CDI events fired by {@code @Locked} methods: observe them for metrics and alerts. They are fired
 * synchronously on the calling thread (except {@link io.locked.api.event.LockRenewalFailed}, fired on the
 * watchdog's thread that renewed the lease); an observer that throws does not change the lock's outcome.
 */
package io.locked.api.event;
