package io.locked.eeapp;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A deliberately non-atomic counter in the database: each call reads the value and writes it back
 * plus one in a transaction of its own (REQUIRES_NEW, inside the lock: @Locked's interceptor runs
 * before @Transactional's), so only the lock keeps callers in one server or two from losing an
 * increment, and the write is committed before the next holder enters. Each call's section (instance,
 * token, entered, left in System.nanoTime(), comparable across the JVMs of one Linux machine) is kept
 * for the test's history checker.
 */
@ApplicationScoped
public class Counter {
    /** Which instance this is, from the system property the tests start it with. */
    static final String INSTANCE = System.getProperty("locked-app.instance", "server");
    private final Queue<String> sections = new ConcurrentLinkedQueue<>();
    @Inject
    EntityManager entityManager;
    @Inject
    LockManager locks;

    @Locked("counter:{name}")
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public long incrementPessimistic(String name) {
        return increment(name);
    }

    @Locked(value = "counter:{name}", mode = LockMode.OPTIMISTIC)
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public long incrementOptimistic(String name) {
        return increment(name);
    }

    private long increment(String name) {
        long enter = System.nanoTime();
        // -1 where no lock is held: a run with locked.default.enabled=false shows what the lock prevents
        long token = locks.current().map(LockHandle::token).orElse(-1L);
        CounterRow row = entityManager.find(CounterRow.class, name);
        if (row == null) {
            row = new CounterRow(name);
            entityManager.persist(row);
        }
        long before = row.value();
        Thread.yield();
        row.value(before + 1);
        entityManager.flush();
        sections.add(name + " " + INSTANCE + " " + token + " " + enter + " " + System.nanoTime());
        return before + 1;
    }

    @Transactional
    public long value(String name) {
        CounterRow row = entityManager.find(CounterRow.class, name);
        return row == null ? 0 : row.value();
    }

    /** @return one line per section: counter, instance, token, entered, left */
    public List<String> sections() {
        return List.copyOf(sections);
    }
}
