/**
 * Creating the lock and fence tables from the shipped schema script of the unit's database. Not
 * API.
 */
package io.locked.jpa.internal.schema;
