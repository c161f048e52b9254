package io.locked.quarkus.app;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockMode;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/**
 * A deliberately non-atomic counter in the database: each call reads the value and writes it back
 * plus one in a transaction of its own, so only the lock keeps two callers (in one instance or two)
 * from losing an increment. The transaction is the method's own (REQUIRES_NEW), inside the lock
 * (@Locked's interceptor runs before @Transactional's): it commits before the next holder enters,
 * even when the caller has a transaction of its own.
 */
@ApplicationScoped
public class Counter {
    @Inject
    EntityManager entityManager;
    @Inject
    LockManager locks;
    @Inject
    History history;

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
            row = new CounterRow();
            row.name = name;
            entityManager.persist(row);
        }
        long before = row.value;
        Thread.yield();
        row.value = before + 1;
        entityManager.flush();
        history.section(name, token, enter, System.nanoTime());
        return row.value;
    }

    @Transactional
    public long value(String name) {
        CounterRow row = entityManager.find(CounterRow.class, name);
        return row == null ? 0 : row.value;
    }
}
