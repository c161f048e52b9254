/**
 * The CDI adapters: the {@code @Locked} interceptor, the portable and build-compatible extensions
 * that validate at deployment, MicroProfile Config lookup, the lock manager producer and events.
 * They only adapt; the algorithm lives in {@link io.locked.internal}. Not API.
 */
package io.locked.internal.cdi;
