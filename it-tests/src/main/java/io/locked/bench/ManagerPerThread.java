package io.locked.bench;

import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockMode;
import io.locked.spi.LockRepository;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One lock manager per benchmark thread, on one repository: threads do not queue inside the JVM
 * and every one of them competes at the database, as threads of separate JVMs would. The runner
 * starts new threads for every slice under the same names, so a manager belongs to a thread name.
 */
final class ManagerPerThread implements AutoCloseable {
    private final Map<String, LockManager> managers = new ConcurrentHashMap<>();
    private final LockRepository repository;

    ManagerPerThread(LockRepository repository) {
        this.repository = repository;
    }

    Cycle cycle(LockMode mode) {
        return (key, inside) -> Benchmark.apiCycle(managers.computeIfAbsent(Thread.currentThread().getName(),
                name -> LockManagerBuilder.on(repository).build()), mode).run(key, inside);
    }

    @Override
    public void close() {
        managers.values().forEach(LockManager::close);
    }
}
