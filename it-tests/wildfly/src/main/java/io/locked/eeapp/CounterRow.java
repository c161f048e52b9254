package io.locked.wildfly.app;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A counter of the application's own, in the same unit and database as the lock table. */
@Entity
@Table(name = "app_counter")
public class CounterRow {
    @Id
    public String name;

    public long value;
}
