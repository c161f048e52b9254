package io.locked.internal.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockManager;
import io.locked.api.Locked;
import io.locked.spi.LockRepository;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 40: a server that goes on firing the EJB timers of an application whose lock store cannot be
 * created (WildFly, after the deployment failed) got the store's failure thrown at every tick, and
 * logged two ERROR stack traces per tick. Each cause is now logged in full once and the run skipped.
 */
class StoreCreationFailuresTest {
    private static final Logger LOG = Logger.getLogger(StoreCreationFailures.class.getName());
    private final List<LogRecord> records = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (records) {
                records.add(record);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private Level previousLevel;

    @BeforeEach
    void captureTheLog() {
        previousLevel = LOG.getLevel();
        LOG.setLevel(Level.ALL);
        LOG.addHandler(capture);
    }

    @AfterEach
    void restoreTheLog() {
        LOG.removeHandler(capture);
        LOG.setLevel(previousLevel);
    }

    @Test
    void timerTicksWhoseStoreCannotBeCreatedAreSkippedAndEachCauseIsLoggedInFullOnce() throws Exception {
        AtomicReference<RuntimeException> creationFailure = new AtomicReference<>(
                new IllegalStateException("creating the store failed", new RuntimeException("Table 'app.locked_lock' doesn't exist")));
        LockedInterceptor interceptor = interceptorWhoseStoreFailsWith(creationFailure);
        NightlyJob job = new NightlyJob();

        for (int tick = 0; tick < 5; tick++) {
            assertNull(interceptor.lockTimeout(timeoutOf(job)), "a skipped run returns nothing to the timer service");
        }
        creationFailure.set(new IllegalStateException("creating the store failed", new RuntimeException("Connection refused")));
        for (int tick = 0; tick < 3; tick++) {
            interceptor.lockTimeout(timeoutOf(job));
        }

        assertEquals(0, job.runs.get(), "the job ran without its lock");
        List<LogRecord> severe = atLevel(Level.SEVERE);
        assertEquals(2, severe.size(), "one full message per cause, not one per tick: " + messages(severe));
        assertTrue(severe.get(0).getMessage().contains("Table 'app.locked_lock' doesn't exist")
                && severe.get(0).getMessage().contains("nightly"), severe.get(0).getMessage());
        assertTrue(severe.get(0).getThrown() != null, "the first report of a cause has its stack trace");
        assertTrue(severe.get(1).getMessage().contains("Connection refused"), severe.get(1).getMessage());
        assertEquals(6, atLevel(Level.FINE).size(), "the repeats, briefly: " + messages(atLevel(Level.FINE)));
    }

    @Test
    void aCauseIsNewsAgainOnceTheStoreWasUp() {
        StoreCreationFailures failures = new StoreCreationFailures();
        RuntimeException down = new IllegalStateException("creating the store failed", new RuntimeException("Connection refused"));
        failures.skipped("Jobs#nightly()", down);
        failures.skipped("Jobs#nightly()", down);
        failures.storeUp();
        failures.skipped("Jobs#nightly()", down);

        List<LogRecord> severe = atLevel(Level.SEVERE);
        assertEquals(2, severe.size(), messages(severe));
        assertSame(down, severe.get(1).getThrown());
    }

    static class NightlyJob {
        final AtomicInteger runs = new AtomicInteger();

        @Locked("nightly")
        public void nightly() {
            runs.incrementAndGet();
        }
    }

    // as Weld's client proxies do when the store's producer throws: every call on the store, and on the
    // manager made on it, tries the creation again and throws its failure
    private static LockedInterceptor interceptorWhoseStoreFailsWith(AtomicReference<RuntimeException> failure) {
        LockedInterceptor interceptor = new LockedInterceptor();
        interceptor.store = failingProxy(LockRepository.class, failure);
        interceptor.locks = failingProxy(LockManager.class, failure);
        interceptor.methods = new LockedMethods();
        interceptor.events = new LockEvents();
        interceptor.storeCreationFailures = new StoreCreationFailures();
        return interceptor;
    }

    private static <T> T failingProxy(Class<T> type, AtomicReference<RuntimeException> failure) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, arguments) -> {
            throw failure.get();
        }));
    }

    private static InvocationContext timeoutOf(NightlyJob job) throws NoSuchMethodException {
        Method nightly = NightlyJob.class.getMethod("nightly");
        return (InvocationContext) Proxy.newProxyInstance(InvocationContext.class.getClassLoader(),
                new Class<?>[] {InvocationContext.class}, (proxy, method, arguments) -> switch (method.getName()) {
                    case "getTarget" -> job;
                    case "getMethod" -> nightly;
                    case "getParameters" -> new Object[0];
                    case "proceed" -> {
                        job.nightly();
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private List<LogRecord> atLevel(Level level) {
        synchronized (records) {
            return records.stream().filter(record -> record.getLevel() == level).toList();
        }
    }

    private static String messages(List<LogRecord> records) {
        return records.stream().map(LogRecord::getMessage).toList().toString();
    }
}
