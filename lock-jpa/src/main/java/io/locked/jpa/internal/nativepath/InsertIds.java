package io.locked.jpa.internal.nativepath;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The insert id of a MariaDB or MySQL statement: the token it drew with {@code LAST_INSERT_ID(expr)}, which the
 * server sends in the statement's OK packet, or 0 where it drew none.
 *
 * <p>Why not always {@link Statement#getGeneratedKeys()}: Connector/J builds a result set for it, with a
 * calendar and a dozen look-ups of its connection properties, about an eighth of the library's own CPU in an
 * optimistic cycle (it-tests/reports/2026-12-03-driver-cpu.md). Connector/J's statement hands out the same
 * value of the same packet without a result set ({@code StatementImpl.getLastInsertID}). It is asked where the
 * statement unwraps to Connector/J's (a Hikari pool's does); any other driver or wrapper is asked through
 * {@code getGeneratedKeys}, which gives no row where the id is 0.
 */
final class InsertIds {
    private static final String CONNECTOR_J_STATEMENT = "com.mysql.cj.jdbc.StatementImpl";

    /** Per driver statement class: its {@code getLastInsertID}, as {@code (Object)long}, or null */
    private static final ClassValue<MethodHandle> LAST_INSERT_ID = new ClassValue<>() {
        @Override
        protected MethodHandle computeValue(Class<?> type) {
            for (Class<?> each = type; each != null; each = each.getSuperclass()) {
                if (each.getName().equals(CONNECTOR_J_STATEMENT)) {
                    try {
                        return MethodHandles.publicLookup()
                                .findVirtual(each, "getLastInsertID", MethodType.methodType(long.class))
                                .asType(MethodType.methodType(long.class, Object.class));
                    } catch (ReflectiveOperationException | RuntimeException notThisVersion) {
                        return null;
                    }
                }
            }
            return null;
        }
    };

    private InsertIds() {
    }

    /**
     * @param statement a statement whose update has run, sent with {@link Statement#RETURN_GENERATED_KEYS}
     * @return its insert id, or 0 where it drew none (or the driver gives none)
     */
    static long of(Statement statement) throws SQLException {
        Statement driver = driverStatement(statement);
        MethodHandle lastInsertId = driver == null ? null : LAST_INSERT_ID.get(driver.getClass());
        if (lastInsertId != null) {
            long id;
            try {
                id = (long) lastInsertId.invokeExact((Object) driver);
            } catch (RuntimeException | Error failed) {
                throw failed;
            } catch (Throwable undeclared) {
                throw new SQLException("Reading the statement's insert id failed", undeclared);
            }
            if (id < 0) { // -1: the statement returned rows; below that, an id past 2^63 no token reaches
                throw new SQLException("The statement's insert id is no token: " + Long.toUnsignedString(id));
            }
            return id;
        }
        try (ResultSet keys = statement.getGeneratedKeys()) {
            return keys.next() ? keys.getLong(1) : 0;
        }
    }

    /** @return the driver's own statement under a pool's, or null where the wrapper will not say */
    private static Statement driverStatement(Statement statement) {
        try {
            return statement.unwrap(Statement.class);
        } catch (SQLException | RuntimeException notUnwrapped) {
            return null;
        }
    }
}
