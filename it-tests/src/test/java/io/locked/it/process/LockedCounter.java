package io.locked.it.process;

import io.locked.api.Locked;
import io.locked.api.event.LockAcquired;
import io.locked.contract.CriticalSection;
import io.locked.contract.HistoryRecorder;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The multi-JVM counter as a {@code @Locked} bean: the lock comes from the annotation alone. */
@ApplicationScoped
public class LockedCounter {
    private final HistoryRecorder history = new HistoryRecorder();
    private final ThreadLocal<Long> token = new ThreadLocal<>();
    @Inject
    DataSource dataSource;

    void onAcquired(@Observes LockAcquired acquired) {
        token.set(acquired.token());
    }

    @Locked(value = "{key}", maxWait = "2m")
    public void increment(String key) throws SQLException {
        long enter = System.nanoTime();
        try (Connection connection = dataSource.getConnection()) {
            Counter.write(connection, key, Counter.read(connection, key) + 1);
        }
        history.record(new CriticalSection(ProcessHandle.current().pid() + "/" + Thread.currentThread().getName(),
                token.get(), enter, System.nanoTime()));
    }

    public HistoryRecorder history() {
        return history;
    }
}
