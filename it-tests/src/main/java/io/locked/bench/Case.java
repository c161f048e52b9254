package io.locked.bench;

/**
 * One benchmarked way to take and free a lock (or a floor that takes none).
 *
 * @param name   as printed
 * @param mode   "floor", "pessimistic" or "optimistic"
 * @param layer  "floor", "raw JDBC", "raw JDBC with token" (a reference), "API", "API, a manager per
 *               thread", "@Locked", "API, JPA path", "API, clock tokens", or a peer's: "ShedLock" or
 *               "Spring JdbcLockRegistry", or a reference that is no table lock: "Redis" or "named lock"
 * @param cycle  the work of one cycle; in a read/write case, a read
 * @param write  in a read/write case, a write, run instead of {@code cycle} in {@code writePercent} of
 *               the cycles, so that the runner knows which were writes and reports their waits apart;
 *               null in every other case
 * @param writePercent the share of writes in percent; 0 without {@code write}
 */
record Case(String name, String mode, String layer, Cycle cycle, Cycle write, int writePercent) {
    Case(String name, String mode, String layer, Cycle cycle) {
        this(name, mode, layer, cycle, null, 0);
    }

    static final String FLOOR = "floor";
    static final String RAW = "raw JDBC";
    static final String RAW_WITH_TOKEN = "raw JDBC with token";
    static final String API = "API";
    /** The API with one manager per thread: no JVM-local queueing, every thread competes at the database. */
    static final String API_MANAGER_PER_THREAD = "API, a manager per thread";
    static final String LOCKED = "@Locked";
    /** The API on the JPA path ({@code locked.statements=jpa}): EntityManager, PESSIMISTIC_WRITE, @Version. */
    static final String API_JPA_PATH = "API, JPA path";
    /** The API with clock tokens ({@code locked.tokens=clock}): most pessimistic releases roll back. */
    static final String API_CLOCK_TOKENS = "API, clock tokens";
    /** The API keeping a released lease {@link Benchmark#LEASE_KEEP} for the next take ({@code locked.hand-over.lease-keep}). */
    static final String API_LEASE_KEEP = "API, lease keep";
    /** The API asking for one of {@value Benchmark#PERMITS} permits of the key, beside its exclusive lock. */
    static final String API_PERMITS = "API, permits";
    /** The API reading under the key's read/write lock: readers share, so the section admits them all. */
    static final String API_READ = "API, read";
    /** The API on the key's read/write lock, {@value Benchmark#READ_PERCENT} % reads and the rest writes. */
    static final String API_READ_MOSTLY = "API, read-mostly";
    /** Another project's lock on the same database and pool ({@link PeerCycles}): ShedLock's JDBC template provider. */
    static final String SHEDLOCK = "ShedLock";
    /** Another project's lock on the same database and pool ({@link PeerCycles}): Spring Integration's JDBC registry. */
    static final String SPRING_JDBC = "Spring JdbcLockRegistry";

    /** Not a table lock: Redis {@code SET NX}, the reference of the hot key's speed ({@link ReferenceLocks}). */
    static final String REDIS = "Redis";
    /** Not a table lock: the database's own named locks, {@code GET_LOCK} or advisory locks ({@link ReferenceLocks}). */
    static final String NAMED_LOCK = "named lock";

    /** @return whether some cycles are writes of a read/write lock, whose waits the report gives apart */
    boolean writes() {
        return write != null;
    }

    boolean peer() {
        return layer.equals(SHEDLOCK) || layer.equals(SPRING_JDBC);
    }

    /** @return how many holders of one key the case lets inside at once */
    int admits() {
        if (layer.equals(API_READ) || layer.equals(API_READ_MOSTLY)) {
            // readers share; whether a writer met anyone is the tests' to check (ReadWriteContract)
            return Integer.MAX_VALUE;
        }
        return layer.equals(API_PERMITS) ? Benchmark.PERMITS : 1;
    }

    boolean locks() {
        return !layer.equals(FLOOR);
    }
}
