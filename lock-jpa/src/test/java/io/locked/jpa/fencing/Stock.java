package io.locked.jpa.fencing;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * The data a lock protects in the fenced-write tests: a stock level per item. No {@code @Version}
 * on purpose: the fence alone must stop a late write.
 */
@Entity
@Table(name = StockTable.NAME)
public class Stock {
    @Id
    @Column(name = "item", length = 100, nullable = false)
    private String item;

    @Column(name = "quantity", nullable = false)
    private int quantity;

    /** @return the item */
    public String getItem() {
        return item;
    }

    /** @return units left */
    public int getQuantity() {
        return quantity;
    }

    /** @param quantity units left */
    public void setQuantity(int quantity) {
        this.quantity = quantity;
    }
}
