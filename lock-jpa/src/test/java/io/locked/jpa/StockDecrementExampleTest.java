package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.zaxxer.hikari.HikariDataSource;
import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockManagerBuilder;
import io.locked.api.LockRequest;
import io.locked.jpa.fencing.Stock;
import io.locked.jpa.fencing.StockTable;
import io.locked.jpa.testing.Store;
import io.locked.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The worked example of the fenced write, the stock decrement, as a reader copies it, compiled and
 * run (documentation prints the same code with the table named {@code stock} and its key {@code sku}).
 */
class StockDecrementExampleTest {
    private LockManager locks;
    private HikariDataSource dataSource;
    private EntityManagerFactory emf;

    void sellWithJdbc(String sku) throws SQLException {
        try (LockHandle lock = locks.acquire(LockRequest.of("stock:" + sku));
             Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                LockFence.check(connection, lock);            // first, before reading the stock
                int left;
                try (PreparedStatement read = connection.prepareStatement(
                        "SELECT quantity FROM fence_test_stock WHERE item = ?")) {
                    read.setString(1, sku);
                    try (ResultSet row = read.executeQuery()) {
                        row.next();
                        left = row.getInt(1);
                    }
                }
                try (PreparedStatement write = connection.prepareStatement(
                        "UPDATE fence_test_stock SET quantity = ? WHERE item = ?")) {
                    write.setInt(1, left - 1);
                    write.setString(2, sku);
                    write.executeUpdate();
                }
                connection.commit();
            } catch (SQLException | RuntimeException failure) {
                connection.rollback();                        // LockLostException: a later holder has written
                throw failure;
            } finally {
                connection.setAutoCommit(true);
            }
        }
    }

    void sellWithJpa(String sku) {
        try (LockHandle lock = locks.acquire(LockRequest.of("stock:" + sku))) {
            EntityManager em = emf.createEntityManager();
            try {
                em.getTransaction().begin();
                LockFence.check(em, lock);                    // first, before reading the stock
                Stock stock = em.find(Stock.class, sku);
                stock.setQuantity(stock.getQuantity() - 1);
                em.getTransaction().commit();
            } finally {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();           // LockLostException: a later holder has written
                }
                em.close();
            }
        }
    }

    @Test
    void bothExamplesDecrementTheStock() throws Exception {
        try (Store store = TestDatabase.H2.open(4);
             HikariDataSource business = TestDatabase.H2.pool(4);
             LockManager manager = LockManagerBuilder.on(store.repository()).build()) {
            locks = manager;
            dataSource = business;
            emf = TestDatabase.H2.entityManagerFactory(business, "locked-fence-test");
            try {
                StockTable stock = new StockTable(business);
                String sku = "sku-" + UUID.randomUUID();
                stock.add(sku, 5);
                sellWithJdbc(sku);
                sellWithJpa(sku);
                assertEquals(3, stock.quantity(sku));
            } finally {
                emf.close();
            }
        }
    }
}
