/**
 * Metrics through Micrometer, an optional dependency. Only {@link io.locked.internal.metrics.MicrometerPresence}
 * may be loaded without Micrometer on the class path; it touches the Micrometer-using classes only
 * after it found Micrometer. Not API: may change in any release.
 */
package io.locked.internal.metrics;
