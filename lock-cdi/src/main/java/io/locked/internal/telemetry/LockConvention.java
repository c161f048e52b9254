package io.locked.internal.telemetry;

import io.opentelemetry.api.common.AttributeKey;

/**
 * Locked's names in OpenTelemetry, as {@code docs/telemetry.md} lists them. The wait follows the shape
 * proposed for waits in OpenTelemetry's semantic conventions (issue 2395): an internal span named
 * {@code wait_for <condition>}, with {@code error.type} when the wait ended without the condition.
 */
final class LockConvention {
    static final String SCOPE = "io.locked";
    static final String WAIT_SPAN = "wait_for lock";
    static final String HOLD_SPAN = "hold lock";

    static final AttributeKey<String> KEY = AttributeKey.stringKey("locked.key");
    static final AttributeKey<String> NAME = AttributeKey.stringKey("locked.name");
    static final AttributeKey<String> MODE = AttributeKey.stringKey("locked.mode");
    static final AttributeKey<String> TYPE = AttributeKey.stringKey("locked.type");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("locked.outcome");
    static final AttributeKey<Long> TOKEN = AttributeKey.longKey("locked.token");
    static final AttributeKey<Double> WAIT_TIMEOUT = AttributeKey.doubleKey("locked.wait.timeout");
    static final AttributeKey<String> STORE_OPERATION = AttributeKey.stringKey("locked.store.operation");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    /** The outcomes of a wait. */
    static final String ACQUIRED = "acquired";
    static final String BUSY = "busy";
    static final String NO_CONNECTION = "no_connection";
    static final String STORE_FAILED = "store_failed";
    static final String INTERRUPTED = "interrupted";
    static final String CLOSED = "closed";
    static final String FAILED = "failed";
    /** The outcomes of a hold. */
    static final String RELEASED = "released";
    static final String LOST = "lost";
    static final String RELEASE_FAILED = "release_failed";

    private LockConvention() {
    }
}
