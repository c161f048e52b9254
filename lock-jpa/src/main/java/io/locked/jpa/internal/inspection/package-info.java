/**
 * Reading the lock rows for inspection, and forced release: ending a pessimistic holder's session
 * only while its hold is open, then freeing the row with a new token and raising its fence. Not
 * API.
 */
package io.locked.jpa.internal.inspection;
