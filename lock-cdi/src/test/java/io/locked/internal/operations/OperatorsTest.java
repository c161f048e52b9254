package io.locked.internal.operations;

import io.locked.api.HolderKind;
import io.locked.api.LockInfo;
import io.locked.api.LockMode;
import io.locked.internal.operations.Operators;
import io.locked.spi.Lease;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import io.locked.spi.PessimisticHold;
import io.locked.testing.InMemoryLockRepository;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The operators' calls tell each holder by key, kind and slot, never by the table's row keys: a page of
 * {@code list} skips the rows no holder holds and is still full, and a forced release of what
 * {@code holders} returned ends that row.
 */
class OperatorsTest {
    private final Table table = new Table();
    private final Operators operators = new Operators(table);

    @Test
    void holdersAreToldByKindAndSlotInThatOrder() {
        table.held("k", "k", LockRows.permitSlot("k", 2), LockRows.readerSlot("k", 7), LockRows.writer("k"));
        table.free(LockRows.readerSlot("k", 1));
        table.held("other", "kk");
        List<LockInfo> holders = operators.holders("k");
        assertEquals(List.of("EXCLUSIVE 0", "WRITER 0", "READER 7", "PERMIT 2"), places(holders));
        assertTrue(holders.stream().allMatch(holder -> holder.key().equals("k") && holder.held()), holders.toString());
        assertEquals(Optional.of(LockMode.OPTIMISTIC), holders.get(0).mode());
        assertEquals(7L, holders.get(2).token().orElseThrow(), "the row's token");
    }

    @Test
    void aListPageSkipsTheSharedRowAndIsStillFull() {
        table.held("k", "k", LockRows.permitSlot("k", 1), LockRows.readerSlot("k", 1), LockRows.writer("k"));
        table.held("k", LockRows.shared("k"));
        table.held("l", "l");
        List<LockInfo> seen = new ArrayList<>();
        LockInfo after = null;
        List<LockInfo> page;
        do {
            page = operators.list("", after, 2);
            seen.addAll(page);
            after = page.isEmpty() ? after : page.get(page.size() - 1);
        } while (page.size() == 2);
        assertEquals(List.of("k EXCLUSIVE 0", "k PERMIT 1", "k READER 1", "k WRITER 0", "l EXCLUSIVE 0"),
                seen.stream().map(info -> info.key() + " " + info.kind() + " " + info.slot()).toList(),
                "every holder's place once, in the table's order, and the shared row nowhere");
    }

    @Test
    void aForcedReleaseOfAHolderEndsItsRowOnly() {
        table.held("k", "k", LockRows.permitSlot("k", 3));
        LockInfo permit = operators.holders("k").get(1);
        assertEquals(HolderKind.PERMIT, permit.kind());
        assertTrue(operators.forceRelease(permit, Duration.ZERO).isPresent());
        assertEquals(List.of(LockRows.permitSlot("k", 3)), table.forced);
        assertTrue(operators.forceRelease("k", Duration.ZERO).isPresent());
        assertEquals(List.of(LockRows.permitSlot("k", 3), "k"), table.forced);
        assertEquals(List.of(), operators.holders("k"));
    }

    @Test
    void rowKeysAreNoLockKeys() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> operators.inspect(LockRows.writer("k")))
                .getMessage().contains("U+001F"));
        assertThrows(IllegalArgumentException.class, () -> operators.holders(LockRows.permitSlot("k", 1)));
        assertThrows(IllegalArgumentException.class, () -> operators.forceRelease((LockInfo) null, Duration.ZERO));
        assertEquals(List.of(), table.forced, "nothing was ended");
        LockInfo free = operators.inspect("never");
        assertTrue(!free.held() && free.token().isEmpty() && free.kind() == HolderKind.EXCLUSIVE, free.toString());
    }

    @Test
    void aStoreWithoutTheOperatorsCallsRefusesThemWithItsReason() {
        Operators bare = new Operators(new InMemoryLockRepository());
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> bare.list("", null, 10));
        assertTrue(refused.getMessage().startsWith("This lock store cannot be inspected: ")
                && refused.getMessage().contains(InMemoryLockRepository.class.getName()), refused.getMessage());
        assertThrows(IllegalStateException.class, () -> bare.forceRelease("k", Duration.ZERO));
        assertThrows(IllegalStateException.class, () -> bare.forceRelease("k", Duration.ofSeconds(1)));
    }

    private static List<String> places(List<LockInfo> holders) {
        return holders.stream().map(holder -> holder.kind() + " " + holder.slot()).toList();
    }

    /** Rows in key order, as a store keeps them; read and ended as the operators' calls ask. */
    private static final class Table implements LockRepository {
        private final TreeMap<String, LockRowState> rows = new TreeMap<>();
        private final List<String> forced = new ArrayList<>();
        private long tokens;

        void held(String ignoredKey, String... rowKeys) {
            for (String row : rowKeys) {
                rows.put(row, new LockRowState(row, LockMode.OPTIMISTIC, "host/1/t", row.endsWith("r7") ? 7L : ++tokens,
                        Instant.EPOCH, Instant.EPOCH.plusSeconds(30), "owner", null));
            }
        }

        void free(String row) {
            rows.put(row, new LockRowState(row, null, null, ++tokens, Instant.EPOCH, null, null, null));
        }

        @Override
        public Optional<LockRowState> inspect(String key) {
            return Optional.ofNullable(rows.get(key));
        }

        @Override
        public List<LockRowState> list(String prefix, String afterKey, int limit) {
            return rows.tailMap(afterKey == null ? "" : afterKey, afterKey == null).values().stream()
                    .filter(row -> row.key().startsWith(prefix)).limit(limit).toList();
        }

        @Override
        public List<LockRowState> inspectAll(List<String> keys) {
            return keys.stream().map(rows::get).filter(row -> row != null).sorted(
                    (a, b) -> a.key().compareTo(b.key())).toList();
        }

        @Override
        public Optional<LockRowState> forceRelease(String key) {
            forced.add(key);
            return Optional.ofNullable(rows.remove(key));
        }

        // the operators' calls take no lock

        @Override
        public PessimisticHold lockPessimistic(String key, String owner, String holder, Duration dbWait) {
            throw new AssertionError("an operator's call took a lock");
        }

        @Override
        public Lease takeLease(String key, String owner, String holder, Duration lease, Duration dbWait) {
            throw new AssertionError("an operator's call took a lease");
        }

        @Override
        public Lease renewLease(Lease lease, Duration duration) {
            throw new AssertionError("an operator's call renewed a lease");
        }

        @Override
        public Lease handOverLease(Lease lease, String newOwner, String holder, Duration duration) {
            throw new AssertionError("an operator's call handed a lease over");
        }

        @Override
        public boolean releaseLease(Lease lease) {
            throw new AssertionError("an operator's call released a lease");
        }

        @Override
        public int deleteIdleRows(Duration idleFor) {
            throw new AssertionError("an operator's call cleaned up");
        }
    }
}
