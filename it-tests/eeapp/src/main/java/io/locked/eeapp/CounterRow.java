package io.locked.eeapp;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * A counter of the application's own, in the same unit and database as the lock table. Read and
 * written through its methods, as JPA wants: EclipseLink's woven entities miss a change made to a
 * field from outside the class.
 */
@Entity
@Table(name = "app_counter")
public class CounterRow {
    @Id
    private String name;

    private long value;

    protected CounterRow() {
    }

    CounterRow(String name) {
        this.name = name;
    }

    long value() {
        return value;
    }

    void value(long newValue) {
        this.value = newValue;
    }
}
