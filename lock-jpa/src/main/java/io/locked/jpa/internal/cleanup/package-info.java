/**
 * Deleting idle lock rows in bounded batches, on either path. Not API.
 */
package io.locked.jpa.internal.cleanup;
