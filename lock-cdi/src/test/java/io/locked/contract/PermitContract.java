package io.locked.contract;

import io.locked.api.HolderKind;
import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockLostException;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.api.LockNotAcquiredException;
import io.locked.api.LockRequest;
import io.locked.contract.PermitHistoryChecker.PermitSection;
import io.locked.spi.LockRepository;
import io.locked.spi.LockRows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Permits ({@link LockRequest#permits()}) on every store of the contract suite, in both modes: as
 * many holders as permits and no more, side by side; a released permit goes to a waiter; a nested
 * request re-enters its slot; an operator sees every holder and ends one or all. Managers on one
 * store stand for JVMs.
 */
public interface PermitContract {
    Duration PERMIT_PATIENCE = Duration.ofSeconds(30);

    /** @return the store under test, its table in place */
    LockRepository permitStore();

    /**
     * @return whether another session can read a row held {@code PESSIMISTIC} without waiting for it
     *         (not on Derby, whose reads wait for row locks)
     */
    default boolean readsPessimisticRows() {
        return true;
    }

    /**
     * What the store shows of its sessions and row locks right now, for a failure's message: read while
     * the test's holders still hold, which a report after the test (its cleanup done) cannot show. Empty
     * where the store has nothing to tell.
     */
    default String storeStateNow() {
        return "";
    }

    private LockManager permitManager() {
        return LockManagerBuilder.on(permitStore()).build();
    }

    private static LockRequest permits(String key, LockMode mode, int count) {
        return LockRequest.of(key).mode(mode).permits(count).maxWait(PERMIT_PATIENCE);
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void permitsAdmitAsManyHoldersAsTheirCountAndTheNextGetsAReleasedOne(LockMode mode) throws Exception {
        String key = "permits:count:" + UUID.randomUUID();
        List<LockManager> jvms = List.of(permitManager(), permitManager(), permitManager(), permitManager());
        ExecutorService fourth = Executors.newSingleThreadExecutor();
        List<LockHandle> held = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                try {
                    held.add(jvms.get(i).acquire(permits(key, mode, 3)));
                } catch (LockNotAcquiredException noSlot) {
                    // a slot nobody holds stayed busy: name what held it while the other holders still hold
                    throw new AssertionError("holder " + (i + 1) + " of three permits got none, with " + i + " held: "
                            + held.stream().map(Places::of).toList() + "; the store meanwhile: " + storeStateNow(), noSlot);
                }
            }
            Set<String> slots = held.stream().map(Places::of).collect(Collectors.toSet());
            assertEquals(Set.of(LockRows.permitSlot(key, 1), LockRows.permitSlot(key, 2),
                    LockRows.permitSlot(key, 3)), slots, "three holders, each in a slot of its own");
            LockManager late = jvms.get(3);
            assertTrue(late.tryAcquire(permits(key, mode, 3)).isEmpty(), "a fourth holder of three permits is refused");
            assertThrows(LockNotAcquiredException.class,
                    () -> late.acquire(permits(key, mode, 3).maxWait(Duration.ofMillis(300))));

            if (mode == LockMode.OPTIMISTIC || readsPessimisticRows()) {
                List<LockInfo> holders = late.holders(key);
                assertEquals(held.stream().map(Places::of).sorted().toList(),
                        holders.stream().map(Places::of).toList(), "the operator sees the three holders in slot order");
                for (LockInfo holder : holders) {
                    LockHandle handle = held.stream().filter(h -> Places.of(h).equals(Places.of(holder))).findFirst().orElseThrow();
                    assertEquals(Optional.of(mode), holder.mode());
                    assertEquals(HolderKind.PERMIT, holder.kind());
                    assertEquals(handle.slot(), holder.slot());
                    if (holder.token().isPresent()) {
                        assertEquals(handle.token(), holder.token().getAsLong(), "the slot's token: " + holder);
                    }
                }
            }

            Future<LockHandle> waiter = fourth.submit(() -> late.acquire(permits(key, mode, 3)));
            LockHandle released = held.remove(1);
            long releasedToken = released.token();
            released.close();
            LockHandle next = waiter.get(PERMIT_PATIENCE.toSeconds(), TimeUnit.SECONDS);
            assertEquals(Places.of(released), Places.of(next), "the waiter got the slot that came free");
            assertTrue(next.token() > releasedToken, "the slot's tokens increase");
            held.add(next);
            while (!held.isEmpty()) {
                held.remove(0).close();
            }
            assertEquals(List.of(), late.holders(key), "every permit released");
        } finally {
            fourth.shutdownNow();
            held.forEach(PermitContract::closeQuietly);
            jvms.forEach(LockManager::close);
        }
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void threadsWithPermitsNeverExceedTheirCountAndDoRunSideBySide(LockMode mode) throws Exception {
        PermitHistoryChecker.Verdict verdict = cycle(LockRequest.of("permits:cycle:" + UUID.randomUUID()).mode(mode)
                .permits(3).maxWait(PERMIT_PATIENCE), 6, 12);
        assertEquals(List.of(), verdict.silent(), mode.toString());
        assertEquals(List.of(), verdict.signalled(), mode.toString());
        assertTrue(verdict.mostInsideAtOnce() >= 2, "three permits never had two holders at once: they ran one at a"
                + " time (" + verdict.mostInsideAtOnce() + ")");
    }

    /** The negative control of the test above: its measure of "side by side" does see an exclusive lock serialize. */
    @Test
    default void theSideBySideMeasureSeesAnExclusiveLockRunOneAtATime() throws Exception {
        PermitHistoryChecker.Verdict verdict = cycle(LockRequest.of("permits:control:" + UUID.randomUUID())
                .mode(LockMode.OPTIMISTIC).maxWait(PERMIT_PATIENCE), 6, 4);
        assertEquals(List.of(), verdict.silent());
        assertEquals(1, verdict.mostInsideAtOnce(), "an exclusive lock had more than one holder inside");
    }

    /** Threads of one manager cycling on the request, each section a short piece of work. */
    private PermitHistoryChecker.Verdict cycle(LockRequest request, int threads, int cycles) throws Exception {
        List<PermitSection> sections = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (LockManager locks = permitManager()) {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    for (int i = 0; i < cycles; i++) {
                        LockHandle permit = locks.acquire(request);
                        long enter = System.nanoTime();
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3));
                        long exit = System.nanoTime();
                        boolean lost = !permit.isValid();
                        try {
                            permit.close();
                        } catch (LockLostException told) {
                            lost = true;
                        }
                        sections.add(new PermitSection(Places.of(permit), new CriticalSection(Thread.currentThread().getName(),
                                permit.token(), enter, exit, lost)));
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(threads * cycles, sections.size());
        return PermitHistoryChecker.check(sections, Math.max(1, request.permits()));
    }

    @ParameterizedTest
    @EnumSource(LockMode.class)
    default void aNestedRequestForPermitsOfTheSameKeyReentersItsSlot(LockMode mode) throws Exception {
        String key = "permits:nested:" + UUID.randomUUID();
        try (LockManager locks = permitManager(); LockManager other = permitManager()) {
            try (LockHandle outer = locks.acquire(permits(key, mode, 2))) {
                try (LockHandle inner = locks.acquire(permits(key, mode, 2))) {
                    assertEquals(Places.of(outer), Places.of(inner), "the nested request holds the same slot");
                    assertEquals(outer.token(), inner.token());
                    try (LockHandle second = other.acquire(permits(key, mode, 2))) {
                        assertNotEquals(Places.of(outer), Places.of(second), "the second permit is still free for another holder");
                    }
                }
                assertTrue(outer.isValid());
                if (mode == LockMode.OPTIMISTIC || readsPessimisticRows()) {
                    assertEquals(1, other.holders(key).size(), "the outer permit is held until the outer close");
                }
            }
            assertEquals(List.of(), other.holders(key));
        }
    }

    @Test
    default void anOperatorEndsOnePermitHolderOrEveryHolderOfAKey() {
        String key = "permits:forced:" + UUID.randomUUID();
        try (LockManager holders = permitManager(); LockManager operator = permitManager()) {
            LockRequest request = permits(key, LockMode.OPTIMISTIC, 3);
            List<LockHandle> held = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(3);
            try {
                for (int i = 0; i < 3; i++) {
                    held.add(threads.submit(() -> holders.acquire(request).handOver()).get(30, TimeUnit.SECONDS));
                }
            } catch (Exception failed) {
                throw new AssertionError(failed);
            } finally {
                threads.shutdownNow();
            }
            try (LockHandle exclusive = holders.acquire(LockRequest.of(key).mode(LockMode.OPTIMISTIC))) {
                LockHandle first = held.get(0);
                assertTrue(Places.forceRelease(operator, Places.of(first)).isPresent(), "the one permit's hold was ended");
                assertThrows(LockLostException.class, first::close, "its holder learns it lost the permit");
                assertEquals(3, operator.holders(key).size(), "the exclusive holder and two permits are left");

                List<LockInfo> ended = operator.forceReleaseAll(key);
                assertEquals(3, ended.size(), "the exclusive hold and both permits ended: " + ended);
                assertEquals(key, ended.get(0).key(), "the exclusive hold first");
                assertEquals(HolderKind.EXCLUSIVE, ended.get(0).kind());
                assertEquals(List.of(HolderKind.PERMIT, HolderKind.PERMIT), ended.subList(1, 3).stream().map(LockInfo::kind).toList());
                assertThrows(LockLostException.class, held.get(1)::close);
                assertThrows(LockLostException.class, held.get(2)::close);
                assertThrows(LockLostException.class, exclusive::close);
                assertEquals(List.of(), operator.holders(key));
            }
        }
    }

    private static void closeQuietly(LockHandle handle) {
        try {
            handle.close();
        } catch (RuntimeException alreadyFailing) {
            // the test failed already: free what it held for the next one
        }
    }

    @Test
    default void badPermitsAndSlotKeysAreRefusedNamingTheValue() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k").permits(101))
                .getMessage().contains("was 101"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k").permits(-1))
                .getMessage().contains("was -1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("a\u001F1"))
                .getMessage().contains("U+001F"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> LockRequest.of("k".repeat(253)).permits(10))
                .getMessage().contains("at most 252 characters with 10 permits"));
        try (LockManager operator = permitManager()) {
            assertThrows(IllegalArgumentException.class, () -> operator.inspect("k\u001F0"));
            assertThrows(IllegalArgumentException.class, () -> operator.inspect("k\u001Fx"));
            assertThrows(IllegalArgumentException.class, () -> operator.holders("k\u001F1"));
            assertFalse(Places.held(operator, LockRows.permitSlot("permits:never:" + UUID.randomUUID(), 100)));
        }
    }
}
