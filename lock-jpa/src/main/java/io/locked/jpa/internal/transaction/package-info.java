/**
 * The lock's own transactions on a pooled connection, and the caller's and the unit's transactions
 * (resource-local and JTA) that lock work stays out of. Not API.
 */
package io.locked.jpa.internal.transaction;
