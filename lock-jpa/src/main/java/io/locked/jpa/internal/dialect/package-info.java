/**
 * One file per database with native statements ({@link
 * io.locked.jpa.internal.dialect.MariaDbDialect}, {@link
 * io.locked.jpa.internal.dialect.MySqlDialect}, {@link
 * io.locked.jpa.internal.dialect.PostgreSqlDialect}, {@link
 * io.locked.jpa.internal.dialect.H2Dialect}), what they share ({@link
 * io.locked.jpa.internal.dialect.Dialect}), their registry ({@link
 * io.locked.jpa.internal.dialect.Dialects}), and the checks a database keeps beside its dialect
 * (Galera's node, HSQLDB's settings, PostgreSQL's place in
 * replication). Knows no path. Not API.
 */
package io.locked.jpa.internal.dialect;
