package io.locked.jpa.internal.dialect;

/**
 * A batch of renewals that never waits for a row another session holds ({@link RenewalStatements#freeRowsRenewal}):
 * both statements lock only the rows of the batch's keys that no other session holds ({@code SKIP LOCKED}).
 *
 * @param renew    one autocommit statement that locks those rows and renews the batch's leases among them, as
 *                 {@link RenewalBatch#renew} does; parameters: the {@link RenewalBatch#SIZE} keys, the lease
 *                 micros, then as many (key, owner, token) triples, padded as the renewal's. Where it counts a
 *                 row per lease, each was renewed; where fewer, it tells neither which rows it skipped nor
 *                 which leases it found lost
 * @param lockFree a read, in a transaction, that locks those rows and returns the key (as given, a text column,
 *                 not as the key column's bytes decode) and the owner of each; parameters: the keys
 */
public record FreeRowsRenewal(String renew, String lockFree) {
}
