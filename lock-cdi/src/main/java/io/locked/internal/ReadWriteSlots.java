package io.locked.internal;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockRequest;
import io.locked.api.LockStoreUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A key's read/write lock, built of exclusive locks the stores already keep: the writer holds the
 * key's writer row, each reader one of {@link LockRequest#MAX_READERS} reader slots. A reader takes a
 * slot first, then reads the writer row; a writer takes the writer row first, then reads the slots.
 * Each looks at the other's row only after its own take is in the database, so of a reader and a
 * writer that arrive together at least one sees the other: the reader gives its slot back and waits,
 * or the writer waits for the slot to be freed. A writer holds its row while it waits for the readers
 * to leave, and readers that see a writer row held do not enter, so a stream of readers cannot starve
 * a writer.
 *
 * <p>Tokens: a writer's is its row's, so each writer's is above the one before. A reader's is the
 * token of the writer row when it entered, the last writer's: every writer after it draws above it,
 * on the same row, whatever the clock does. A reader's token thus tells which writes it may have seen,
 * and fenced writes belong to writers.
 */
final class ReadWriteSlots {
    private final TimeSource time;

    ReadWriteSlots(TimeSource time) {
        this.time = time;
    }

    /**
     * @return the read, or null when none came within the wait; under this thread's write of the key,
     *         a nested hold of that write (a downgrade)
     */
    LockHandle read(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        String writer = LockRequest.writerKey(request.key());
        LockHandle underTheWrite = rows.reenter(scope, writer);
        if (underTheWrite != null) {
            return underTheWrite;
        }
        for (int slot = 1; slot <= LockRequest.MAX_READERS; slot++) {
            LockHandle nested = rows.reenter(scope, LockRequest.readerSlotKey(request.key(), slot));
            if (nested != null) {
                return nested;
            }
        }
        Backoff backoff = Backoff.standard();
        int first = ThreadLocalRandom.current().nextInt(LockRequest.MAX_READERS);
        while (true) {
            LockHandle slot = null;
            for (int i = 0; i < LockRequest.MAX_READERS && slot == null; i++) {
                slot = rows.take(LockRequest.readerSlotKey(request.key(), (first + i) % LockRequest.MAX_READERS + 1),
                        Duration.ZERO);
            }
            if (slot != null) {
                LockInfo writerRow = readHolding(() -> rows.inspect(writer), slot);
                if (!writerRow.held()) {
                    // every later writer draws its token on that row, above this one
                    ((AcquisitionView) slot).acquisition.shownToken = writerRow.token() == null ? 0 : writerRow.token();
                    return slot;
                }
                // a writer holds the key or waits for it: give the slot back, wait until its row is free
                slot.close();
                while (readHolding(() -> rows.inspect(writer), null).held()) {
                    if (!backoff.pause(time, request.key(), deadline)) {
                        return null;
                    }
                }
            } else if (!backoff.pause(time, request.key(), deadline)) {
                return null;
            }
        }
    }

    /**
     * @return the write, or null when the writer row or the readers' leaving did not come within the wait
     * @throws IllegalStateException when this thread reads the key: its write would wait for itself
     */
    LockHandle write(LockRequest request, ThreadScope scope, long deadline, RowAccess rows) {
        String writer = LockRequest.writerKey(request.key());
        LockHandle nested = rows.reenter(scope, writer);
        if (nested != null) {
            return nested;
        }
        if (scope.find(writer) == null) {
            for (int slot = 1; slot <= LockRequest.MAX_READERS; slot++) {
                if (scope.find(LockRequest.readerSlotKey(request.key(), slot)) != null) {
                    throw new IllegalStateException("Cannot write '" + request.key() + "' while this thread reads it:"
                            + " the write would wait for this thread's own read forever. Release the read first, or"
                            + " take the write first (a read inside a write is allowed)");
                }
            }
        }
        LockHandle write = rows.take(writer, Duration.ofNanos(Math.max(0, deadline - time.nanoTime())));
        return write == null || !awaitNoReader(request, deadline, rows, write) ? null : write;
    }

    /** @return true once no reader slot is held; false, the write released, when the wait ran out first */
    private boolean awaitNoReader(LockRequest request, long deadline, RowAccess rows, LockHandle write) {
        Backoff backoff = Backoff.standard();
        String prefix = LockRequest.readerSlotKey(request.key(), 1);
        prefix = prefix.substring(0, prefix.length() - 1);
        String readers = prefix;
        while (true) {
            List<LockInfo> slots = readHolding(() -> rows.list(readers, LockRequest.MAX_READERS), write);
            if (slots.stream().noneMatch(LockInfo::held)) {
                return true;
            }
            boolean waited;
            try {
                waited = backoff.pause(time, request.key(), deadline);
            } catch (RuntimeException interrupted) {
                closeAfterFailure(write, interrupted);
                throw interrupted;
            }
            if (!waited) {
                write.close();
                return false;
            }
        }
    }

    /**
     * Reads the table while holding a row (or none), which is released if the read fails: a failed read must
     * not leave a reader slot or the writer row held. A read that failed as "store unavailable" is
     * tried once more first: H2 now and then fails a read that meets a row another transaction changes.
     */
    private static <T> T readHolding(Supplier<T> read, LockHandle held) {
        try {
            try {
                return read.get();
            } catch (LockStoreUnavailableException once) {
                return read.get();
            }
        } catch (RuntimeException | Error failed) {
            closeAfterFailure(held, failed);
            throw failed;
        }
    }

    private static void closeAfterFailure(LockHandle held, Throwable failure) {
        if (held == null) {
            return;
        }
        try {
            held.close();
        } catch (RuntimeException | Error releaseFailed) {
            failure.addSuppressed(releaseFailed);
        }
    }
}
