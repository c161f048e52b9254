/**
 * Spans and metrics through OpenTelemetry, an optional dependency switched on by the application. Only
 * {@link io.locked.internal.telemetry.TelemetryPresence} may be loaded without the OpenTelemetry API on
 * the class path; it touches the classes that use it only after it found it. The names of spans,
 * attributes and instruments are Locked's convention, written down in {@code docs/telemetry.md}. Not API:
 * may change in any release.
 */
package io.locked.internal.telemetry;
