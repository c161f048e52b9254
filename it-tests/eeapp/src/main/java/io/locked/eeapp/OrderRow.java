package io.locked.eeapp;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A caller's own write, in the caller's transaction. */
@Entity
@Table(name = "app_order")
public class OrderRow {
    @Id
    private String id;

    protected OrderRow() {
    }

    OrderRow(String id) {
        this.id = id;
    }
}
