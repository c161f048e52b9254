package io.locked.jpa.internal.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.jpa.LockTokens;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The raise of a token drawn behind the clock, on a virtual monotonic clock and a virtual database
 * clock: once per step back per lock store, not once per change of store, and again where the clock
 * may have passed the store's last commit since.
 */
class TokenWritesTest {
    private static final long SECOND = 1_000_000;
    private static final long WRITE_PERIOD = TokenWrites.WRITE_PERIOD.toNanos() / 1000;
    private static final String KEY = "k";
    private final AtomicLong nanos = new AtomicLong();
    /** The row's committed token and the database clock, both in microseconds. */
    private long row;
    private long clock;

    /** One pessimistic cycle of a store with the clock behind the row: drawn, raised or not, committed. */
    private long cycle(TokenWrites store) {
        long drawn = Math.max(row + 1, clock);
        boolean behind = drawn > clock;
        long token = behind ? store.behindClock(KEY, drawn, clock) : drawn;
        store.committed(KEY, token, behind);
        row = token;
        return token;
    }

    private void advance(long micros) {
        clock += micros;
        nanos.addAndGet(micros * 1000);
    }

    @Test
    void storesTakingTurnsRaiseOncePerStepBackEachAndTheClockCatchesUp() {
        List<TokenWrites> stores = List.of(TokenWrites.of(LockTokens.WRITTEN, nanos::get),
                TokenWrites.of(LockTokens.CLOCK, nanos::get));
        clock = 1_000 * SECOND;
        row = clock;
        // the clock steps back two seconds behind the row's committed token
        clock -= 2 * SECOND;
        long before = row;
        for (int turn = 0; turn < 200; turn++) {
            cycle(stores.get(turn % 2));
            advance(1_000); // a millisecond per turn
        }
        // each store raised once: the tokens lead the clock by at most a raise per store
        assertTrue(row <= before + 2 * (WRITE_PERIOD + 1) + 200, "the tokens ran ahead: " + (row - before) + " us");
        assertTrue(row > before + WRITE_PERIOD, "no raise past what clock-token stores may have rolled back");
        // as the clock runs on it passes the tokens, and draws come from it again
        advance(5 * SECOND);
        long drawn = cycle(stores.get(0));
        assertEquals(clock, drawn, "the clock did not catch up with the tokens");
    }

    @Test
    void aStoreRaisesAgainWhereTheClockMayHavePassedItsLastCommitSince() {
        TokenWrites store = TokenWrites.of(LockTokens.WRITTEN, nanos::get);
        TokenWrites other = TokenWrites.of(LockTokens.WRITTEN, nanos::get);
        clock = 1_000 * SECOND;
        row = clock;
        clock -= 2 * SECOND;
        long raised = cycle(store);
        assertEquals(row, raised);
        assertTrue(raised > clock + 2 * SECOND, "the first draw behind the clock was not raised");
        // another store draws once behind the clock, and this store's last commit is then below the row
        cycle(other);
        // long enough for the clock, running true, to pass this store's last commit: it may have, and
        // stepped back again, with tokens rolled back above the row's in between
        nanos.addAndGet((raised - clock + SECOND) * 1000);
        long rowBefore = row;
        long next = cycle(store);
        assertEquals(rowBefore + 1 + WRITE_PERIOD, next, "a store whose last commit the clock may have passed skipped the raise");
    }

    @Test
    void aStoreWhoseOwnCommitIsTheRowsTokenDrawsItPlusOne() {
        TokenWrites store = TokenWrites.of(LockTokens.CLOCK, nanos::get);
        clock = 1_000 * SECOND;
        row = clock + 3_600 * SECOND;
        long first = cycle(store);
        assertEquals(clock + 3_600 * SECOND + 1 + WRITE_PERIOD, first);
        assertEquals(first + 1, cycle(store));
        assertEquals(first + 2, cycle(store));
    }
}
