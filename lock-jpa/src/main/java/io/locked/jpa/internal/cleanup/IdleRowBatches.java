package io.locked.jpa.internal.cleanup;

import io.locked.jpa.internal.dialect.IdleRowStatements;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The cleanup of idle rows walks the lock table in key order, a batch at a time, each batch a short
 * transaction of its own that deletes at most {@link #SIZE} rows: memory, transaction size and row
 * locks stay bounded whatever the size of the table, and no transaction stays open long enough to
 * hold back an acquirer or the database's purge of old row versions. Both paths run it
 * ({@link NativeIdleRows}, and {@code EntityLockRepository} through the {@code EntityManager}).
 *
 * <p>Each batch is logged at FINER on the logger {@value #LOGGER} with the keys it looked at
 * (parameter 0) and the rows it deleted (parameter 1).
 */
public final class IdleRowBatches {
    /**
     * Rows per batch. Large enough that a batch's fixed cost (its round trips and its commit, an
     * fsync on a durable server) is a small share per row; small enough that a batch is a few
     * milliseconds of work holding a few hundred row locks (on rows nobody is using: they are idle),
     * that its undo stays small, and that its statements, which carry this many keys, stay far below
     * any driver's limit on parameters (PostgreSQL's is 32767).
     */
    public static final int SIZE = IdleRowStatements.BATCH;
    /** The cleanup's logger, the scheduled cleanup's own. */
    static final String LOGGER = "io.locked.cleanup";
    /** A batch's log message: parameter 0 the keys it looked at, 1 the rows it deleted. */
    static final String BATCH = "Cleanup batch: {0} idle keys looked at, {1} rows deleted";
    private static final Logger LOG = Logger.getLogger(LOGGER);

    private IdleRowBatches() {
    }

    /**
     * One batch's outcome.
     *
     * @param candidates the keys it looked at, in key order: at most {@link #SIZE}, fewer only at the
     *                   end of the table
     * @param deleted    the rows it deleted
     */
    public record Batch(List<String> candidates, int deleted) {
        /** The batch that found no idle row after the last one. */
        public static final Batch END = new Batch(List.of(), 0);
    }

    /** One batch, from the first key after the given one (null: from the first key of the table). */
    @FunctionalInterface
    public interface Work {
        Batch after(String key);
    }

    /** @return the rows deleted by all batches, run one after the other until one comes short */
    public static int run(Work work) {
        int deleted = 0;
        String after = null;
        while (true) {
            Batch batch = work.after(after);
            deleted += batch.deleted();
            LOG.log(Level.FINER, BATCH, new Object[] {batch.candidates().size(), batch.deleted()});
            if (batch.candidates().size() < SIZE) {
                return deleted;
            }
            after = batch.candidates().get(batch.candidates().size() - 1);
        }
    }
}
