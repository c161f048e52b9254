/**
 * Fenced writes: which fence statements a connection or a unit uses, and the caller's transaction
 * they run in (JDBC or an {@code EntityManager}). Not API.
 */
package io.locked.jpa.internal.fence;
