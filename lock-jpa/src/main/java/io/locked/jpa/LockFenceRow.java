package io.locked.jpa;

import io.locked.jpa.internal.dialect.FenceStatements;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * One key's row of the fence table of {@link LockFence}: the highest token that has written through
 * the fence. Its mapping is here so that a JPA provider that generates the schema from the entities
 * ({@code jakarta.persistence.schema-generation.database.action}, Quarkus'
 * {@code quarkus.hibernate-orm.database.generation}) creates the fence table beside the lock table: add
 * it to the unit with {@link LockRow}. Locked writes the table with its own statements; applications
 * read it at most.
 */
@Entity
@Table(name = FenceStatements.TABLE)
public class LockFenceRow {
    @Id
    @Column(name = "lock_key", length = 255, nullable = false)
    private String key;

    @Column(name = "token", nullable = false)
    private long token;

    /** For the JPA provider. */
    protected LockFenceRow() {
    }

    /** @return the lock key */
    public String getKey() {
        return key;
    }

    /** @return the highest token that has written through the fence for the key */
    public long getToken() {
        return token;
    }
}
