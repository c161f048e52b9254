/**
 * CDI events fired by {@code @Locked} methods: observe them for metrics and alerts. They are fired
 * synchronously on the calling thread; an observer that throws does not change the lock's outcome.
 */
package io.locked.api.event;
