package io.locked.it.weld.exclusion;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.locked.contract.HistoryChecker;
import io.locked.it.weld.LockedDeployment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** Threads calling a {@code @Locked} method on one key never overlap; the unguarded count ends exact. */
class ExclusionTest {

    @Test
    void callsOnOneKeyNeverOverlap() throws Exception {
        try (WeldContainer container = LockedDeployment.with(StockRoom.class).initialize()) {
            StockRoom room = container.select(StockRoom.class).get();
            ExecutorService threads = Executors.newFixedThreadPool(8);
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                calls.add(threads.submit(() -> room.take("widget")));
            }
            for (Future<?> call : calls) {
                call.get(60, TimeUnit.SECONDS);
            }
            threads.shutdown();
            assertEquals(List.of(), HistoryChecker.violations(room.history().sections()));
            assertEquals(200, room.taken("widget"));
        }
    }
}
