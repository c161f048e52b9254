package io.locked.demo;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/** A shop process: Weld SE finds the {@code @Locked} {@link Shop}; its buyers sell until both items are gone. */
final class StockWorker {
    private StockWorker() {
    }

    static void run(String url, String name, int buyers) throws Exception {
        System.setProperty("demo.url", url);
        System.setProperty("demo.shop", name);
        System.setProperty("demo.connections", String.valueOf(buyers + 2));
        try (WeldContainer container = new Weld().initialize()) {
            Shop shop = container.select(Shop.class).get();
            List<Thread> threads = new ArrayList<>();
            List<Exception> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int b = 0; b < buyers; b++) {
                Thread buyer = new Thread(() -> {
                    try {
                        sellUntilSoldOut(shop);
                    } catch (SQLException e) {
                        failures.add(e);
                    }
                }, name + "-buyer-" + b);
                threads.add(buyer);
                buyer.start();
            }
            for (Thread buyer : threads) {
                buyer.join();
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        }
    }

    private static void sellUntilSoldOut(Shop shop) throws SQLException {
        boolean widgetsLeft = true;
        boolean gadgetsLeft = true;
        while (widgetsLeft || gadgetsLeft) {
            widgetsLeft = widgetsLeft && shop.sellWidget();
            gadgetsLeft = gadgetsLeft && shop.sellGadget();
        }
    }
}
