package io.locked.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.LogManager;
import org.h2.tools.Server;

/**
 * The demo: three shop processes of four buyers each sell a limited stock of two items through a
 * {@code @Locked} bean on Weld SE, widgets under a pessimistic lock and gadgets under an optimistic
 * one, against one embedded H2 database that this process serves on loopback. It ends with a
 * summary: nothing may be oversold.
 *
 * <p>Run it with {@code mvn -q -Pdemo -DskipTests verify}; arguments: {@code [processes] [buyers] [stock]}.
 */
public final class StockDemo {
    static final String WIDGET = "widget";
    static final String GADGET = "gadget";

    private StockDemo() {
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        if (args.length > 0 && args[0].equals("worker")) {
            StockWorker.run(args[1], args[2], Integer.parseInt(args[3]));
            return;
        }
        int processes = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int buyers = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int stock = args.length > 2 ? Integer.parseInt(args[2]) : 200;

        Server h2 = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
        String url = "jdbc:h2:tcp://localhost:" + h2.getPort() + "/mem:locked-demo;DB_CLOSE_DELAY=-1";
        try (DemoDatabase database = new DemoDatabase(url, 2)) {
            database.locks.createTableIfMissing();
            createShop(database, stock);
            System.out.printf("Locked demo: %d shop processes x %d buyers selling %d widgets (pessimistic lock)"
                    + " and %d gadgets (optimistic lock) through @Locked beans on Weld SE, embedded H2%n", processes, buyers, stock, stock);
            long started = System.nanoTime();
            runShops(url, processes, buyers);
            double seconds = (System.nanoTime() - started) / 1e9;
            boolean ok = new SalesReport(database.pool, stock).print(seconds);
            if (!ok) {
                System.exit(1);
            }
        } finally {
            h2.stop();
        }
    }

    private static void createShop(DemoDatabase database, int stock) throws SQLException {
        try (Connection connection = database.pool.getConnection(); Statement ddl = connection.createStatement()) {
            ddl.execute("CREATE TABLE demo_stock (item VARCHAR(20) PRIMARY KEY, remaining INT NOT NULL)");
            ddl.execute("CREATE TABLE demo_sale (id BIGINT AUTO_INCREMENT PRIMARY KEY, item VARCHAR(20) NOT NULL,"
                    + " worker VARCHAR(20) NOT NULL, token BIGINT NOT NULL)");
            ddl.execute("INSERT INTO demo_stock VALUES ('" + WIDGET + "', " + stock + "), ('" + GADGET + "', " + stock + ")");
        }
    }

    private static void runShops(String url, int processes, int buyers) throws IOException, InterruptedException {
        List<Process> shops = new ArrayList<>();
        for (int p = 1; p <= processes; p++) {
            shops.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), StockDemo.class.getName(),
                    "worker", url, "shop-" + p, String.valueOf(buyers))
                    .inheritIO().start());
        }
        for (Process shop : shops) {
            if (!shop.waitFor(5, TimeUnit.MINUTES) || shop.exitValue() != 0) {
                throw new IllegalStateException("shop process " + shop.pid() + " failed");
            }
        }
    }

    private static void quietLogging() throws IOException {
        try (InputStream config = StockDemo.class.getResourceAsStream("/locked-demo-logging.properties")) {
            LogManager.getLogManager().readConfiguration(config);
        }
    }

    static int count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getInt(1);
        }
    }

}
