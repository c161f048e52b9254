/**
 * Mappings of the lock row for JPA providers that need them: converters of its times for providers of
 * Jakarta Persistence 3.1 that have no mapping for {@code java.time.Instant} (EclipseLink 4), applied by
 * the mapping files in {@code META-INF/locked/}. Hibernate ORM needs none of them.
 */
package io.locked.jpa.mapping;
