package io.locked.it.weld.transactional;

import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transactional;
import java.sql.Connection;
import javax.sql.DataSource;

/**
 * Stands in for a JTA implementation's {@code @Transactional} interceptor, at the priority the
 * Jakarta Transactions spec gives it (PLATFORM_BEFORE + 200): one JDBC transaction per call,
 * committed when the call returns.
 */
@Transactional
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 200)
public class JdbcTransactionInterceptor {
    static final ThreadLocal<Connection> CURRENT = new ThreadLocal<>();
    private final DataSource dataSource;
    private final Trace trace;

    @Inject
    JdbcTransactionInterceptor(DataSource dataSource, Trace trace) {
        this.dataSource = dataSource;
        this.trace = trace;
    }

    /** @return the connection of this thread's business transaction, or null outside one */
    public static Connection current() {
        return CURRENT.get();
    }

    @AroundInvoke
    Object inTransaction(InvocationContext invocation) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            CURRENT.set(connection);
            trace.add("tx-begin");
            try {
                Object result = invocation.proceed();
                connection.commit();
                trace.add("tx-commit");
                return result;
            } catch (Exception failure) {
                connection.rollback();
                throw failure;
            } finally {
                CURRENT.remove();
                connection.setAutoCommit(true);
            }
        }
    }
}
