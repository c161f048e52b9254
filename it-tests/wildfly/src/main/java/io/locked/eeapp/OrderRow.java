package io.locked.wildfly.app;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A caller's own write, in the caller's transaction. */
@Entity
@Table(name = "app_order")
public class OrderRow {
    @Id
    public String id;
}
