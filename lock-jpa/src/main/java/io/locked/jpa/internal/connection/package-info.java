/**
 * Connections and pools: where the unit's connections come from (a data source, Hibernate's
 * provider, Hikari), how long a call may wait for one and for its statements, the share
 * pessimistic locks may hold, and what an SQL failure means. Not API.
 */
package io.locked.jpa.internal.connection;
