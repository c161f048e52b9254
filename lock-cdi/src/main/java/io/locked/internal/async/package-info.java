/**
 * Acquisitions that do not block their caller: the blocking acquisition runs on an executor of its own,
 * and the caller gets a stage that completes with the hold. Internal: not API.
 */
package io.locked.internal.async;
