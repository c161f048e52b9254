package io.locked.jpa.testing;

import com.zaxxer.hikari.HikariDataSource;
import javax.sql.DataSource;

/** A test unit's connection pool, with what the suites check of it at the end. */
public interface TestPool extends AutoCloseable {
    DataSource dataSource();

    /** @return connections borrowed from the pool right now */
    int borrowed();

    /** Drops the idle connections: what a pool's validation does after their sessions were ended outside. */
    void evictIdle();

    @Override
    void close();

    static TestPool of(HikariDataSource hikari) {
        return new TestPool() {
            @Override
            public DataSource dataSource() {
                return hikari;
            }

            @Override
            public int borrowed() {
                return hikari.getHikariPoolMXBean().getActiveConnections();
            }

            @Override
            public void evictIdle() {
                // an ended H2 session fails with a state Hikari does not take for a broken connection,
                // and it would hand the dead connection out again
                hikari.getHikariPoolMXBean().softEvictConnections();
            }

            @Override
            public void close() {
                hikari.close();
            }
        };
    }
}
