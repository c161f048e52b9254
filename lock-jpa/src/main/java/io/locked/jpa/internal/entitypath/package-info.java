/**
 * The JPA path: the lock rows through the {@code EntityManager} only ({@code PESSIMISTIC_WRITE},
 * {@code @Version}), on any provider and database, with its clock and its start-up check of the
 * mapping. Uses the services, dialects, transactions and connections below it. Not API.
 */
package io.locked.jpa.internal.entitypath;
