package io.locked.it.galera;

import io.locked.spi.LockRows;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.locked.api.LockRequest;
import io.locked.it.server.MariaDbEndpoint;
import io.locked.jpa.JpaLockRepository;
import io.locked.spi.LockRowState;
import jakarta.persistence.EntityManagerFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * What a read/write lock asks of the database, without the lock around it: on each of many new keys
 * a reader takes a reader slot and then reads the writer row, while a writer takes the writer row
 * and then reads the slot, both started at the same instant. Of the two, at least one must see the
 * other's take; where neither does, both would enter. Each takes and reads on the nodes it is given.
 */
final class ReaderWriterRace implements AutoCloseable {
    private final List<EntityManagerFactory> units = new ArrayList<>();
    private final JpaLockRepository readerTakes;
    private final JpaLockRepository readerReads;
    private final JpaLockRepository writerTakes;
    private final JpaLockRepository writerReads;
    private final ExecutorService both = Executors.newFixedThreadPool(2);

    ReaderWriterRace(MariaDbEndpoint readerTakes, MariaDbEndpoint readerReads, MariaDbEndpoint writerTakes,
                     MariaDbEndpoint writerReads) {
        this.readerTakes = repository(readerTakes);
        this.readerReads = repository(readerReads);
        this.writerTakes = repository(writerTakes);
        this.writerReads = repository(writerReads);
    }

    private JpaLockRepository repository(MariaDbEndpoint endpoint) {
        EntityManagerFactory unit = GaleraClusterTest.unit(endpoint);
        units.add(unit);
        return new JpaLockRepository(unit);
    }

    /** @return on how many of that many keys each missed the other's take */
    int bothMissed(int keys) throws Exception {
        int bothMissed = 0;
        for (int k = 1; k <= keys; k++) {
            bothMissed += missedEachOther() ? 1 : 0;
        }
        return bothMissed;
    }

    /** @return the first key (from 1) on which each missed the other's take, 0 if none of that many did */
    int firstBothMissed(int keys) throws Exception {
        for (int k = 1; k <= keys; k++) {
            if (missedEachOther()) {
                return k;
            }
        }
        return 0;
    }

    private boolean missedEachOther() throws Exception {
        String key = "it:galera:reader-writer-race:" + UUID.randomUUID();
        String writer = LockRows.writer(key);
        String slot = LockRows.readerSlot(key, 1);
        CyclicBarrier together = new CyclicBarrier(2);
        Future<Boolean> readerSaw = both.submit(() -> takeThenSee(together, readerTakes, slot, readerReads, writer));
        Future<Boolean> writerSaw = both.submit(() -> takeThenSee(together, writerTakes, writer, writerReads, slot));
        // both answers first: the next key must not start while one of them still reads
        boolean readerSawTheWriter = readerSaw.get();
        boolean writerSawTheReader = writerSaw.get();
        return !readerSawTheWriter && !writerSawTheReader;
    }

    /** @return whether, once its own row was taken, the other row showed as held */
    private static boolean takeThenSee(CyclicBarrier together, JpaLockRepository takes, String own, JpaLockRepository reads,
                                       String other) throws Exception {
        together.await();
        // the row is new and no one else takes it
        assertNotNull(takes.takeLease(own, "race", "race", Duration.ofMinutes(5), Duration.ZERO), "not taken: " + own);
        return reads.inspect(other).map(LockRowState::held).orElse(false);
    }

    @Override
    public void close() {
        both.shutdownNow();
        units.forEach(EntityManagerFactory::close);
    }
}
