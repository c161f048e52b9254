/**
 * The native path: each database's own statements ({@code internal.dialect}) on a connection of
 * the unit's pool, in the lock's own transactions. Not API.
 */
package io.locked.jpa.internal.nativepath;
