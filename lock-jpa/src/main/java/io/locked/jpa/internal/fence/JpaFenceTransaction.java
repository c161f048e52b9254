package io.locked.jpa.internal.fence;

import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.transaction.FenceTransaction;
import jakarta.persistence.EntityManager;
import jakarta.persistence.Query;
import java.util.List;

/**
 * Fence statements as native queries of the caller's EntityManager, so that they join its
 * transaction whatever the provider; no provider type is needed.
 */
public final class JpaFenceTransaction implements FenceTransaction {
    /**
     * Hibernate's hint naming the tables a native statement touches. Without it Hibernate flushes
     * the whole session before the statement and empties the second-level cache after it. Providers
     * ignore hints they do not know.
     */
    private static final String HIBERNATE_QUERY_SPACES = "org.hibernate.query.native.spaces";

    private final EntityManager entityManager;

    public JpaFenceTransaction(EntityManager entityManager) {
        this.entityManager = entityManager;
    }

    @Override
    public int update(String sql, Object... parameters) {
        return query(sql, parameters).executeUpdate();
    }

    @Override
    public Long queryLong(String sql, Object... parameters) {
        List<?> rows = query(sql, parameters).getResultList();
        return rows.isEmpty() ? null : ((Number) rows.get(0)).longValue();
    }

    private Query query(String sql, Object... parameters) {
        Query query = entityManager.createNativeQuery(sql).setHint(HIBERNATE_QUERY_SPACES, FenceStatements.TABLE);
        for (int i = 0; i < parameters.length; i++) {
            query.setParameter(i + 1, parameters[i]);
        }
        return query;
    }
}
