package io.locked.jpa.internal.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * "Enlarge the pool" only when the pool really had none to lend: all its connections out, or a pool
 * whose use Locked cannot see. A call with {@code maxWait = "0s"} that met a momentary shortage in a
 * pool with room says nothing.
 */
class PoolShortageTest {
    private final List<String> warnings = new ArrayList<>();
    private final Logger logger = Logger.getLogger(PoolShortage.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            warnings.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    {
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
    }

    /** A pool of 10 with the given connections lent out; -1: its use cannot be read. */
    private static LockConnections pool(int lent) {
        return new LockConnections() {
            @Override
            public Connection open() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Connection open(long waitNanos) {
                throw new UnsupportedOperationException();
            }

            @Override
            public void close(Connection connection) {
            }

            @Override
            public int maximumSize() {
                return 10;
            }

            @Override
            public OptionalInt inUse() {
                return lent < 0 ? OptionalInt.empty() : OptionalInt.of(lent);
            }

            @Override
            public String describe() {
                return "the test's pool of 10";
            }
        };
    }

    @Test
    void aPoolWithRoomSaysNothingAFullOneSaysEnlargeIt() {
        new PoolShortage(pool(3)).noConnection("order:1", "its lease", Duration.ZERO);
        assertEquals(List.of(), warnings, "three of ten lent out: a momentary shortage");

        new PoolShortage(pool(10)).noConnection("order:1", "its lease", Duration.ZERO);
        assertEquals(1, warnings.size(), "all ten lent out");
        assertTrue(warnings.get(0).contains("Enlarge the pool"), warnings.get(0));

        new PoolShortage(pool(-1)).noConnection("order:2", "its lease", Duration.ZERO);
        assertEquals(2, warnings.size(), "a pool whose use cannot be read gets the advice too");
    }
}
