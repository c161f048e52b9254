package io.locked.jpa.internal.dialect;

import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.connection.NoFreeConnection;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * Refuses, at start-up, a PostgreSQL store whose connections reach the server through a pooler in
 * transaction pooling (PgBouncer {@code pool_mode = transaction}) while pgJDBC prepares statements
 * on the server. pgJDBC does so for a statement text used {@code prepareThreshold} times (5 by
 * default) on a connection, and from then on runs it by name; the pooler lends each transaction
 * whichever server session is free, where that name is missing, or is another client's statement
 * (seen here: "bind message supplies 1 parameters, but prepared statement "S_2" requires 0", with
 * pessimistic holders losing their locks). With {@code prepareThreshold=0} every statement is
 * unnamed, and the lock works in transaction pooling: everything else it sets is local to its
 * transaction ({@code set_config(..., true)}, {@code SET LOCAL}), and a pessimistic hold keeps its
 * transaction, so its server session, until it ends.
 *
 * <p>Such a pooler is seen from two of the store's connections at once: in session pooling, and
 * without a pooler, each has a server session of its own for its whole life; in transaction pooling
 * two may be served by one session, or one by another session in its next transaction. A pooler
 * that happens to lend each the same session throughout is not seen (the docs name the setting anyway).
 */
final class TransactionPooling {
    private static final String SESSION = "SELECT pg_backend_pid()";
    private static final String PG_CONNECTION = "org.postgresql.PGConnection";
    private static final int ROUNDS = 3;
    static final String REFUSAL = "The lock store's connections reach PostgreSQL through a pooler in transaction"
            + " pooling (such as PgBouncer with pool_mode = transaction, or statement): %s. pgJDBC runs a statement used"
            + " prepareThreshold (here %d) times as a statement prepared on the server, by name, and the pooler lends"
            + " the next transaction another client's server session, where that name is missing or is another"
            + " statement. Add prepareThreshold=0 to the JDBC URL (jdbc:postgresql://host:6432/db?prepareThreshold=0),"
            + " or use session pooling";

    private TransactionPooling() {
    }

    /**
     * @throws IllegalStateException if the connections show transaction pooling and pgJDBC would
     *                               prepare statements on the server
     */
    static void check(LockConnections connections) {
        if (connections.maximumSize() == 1) {
            return; // two connections at once are needed to tell
        }
        String refusal;
        try {
            refusal = LockTransaction.autocommit(connections, CallBounds.brief(), first -> {
                int threshold = prepareThreshold(first);
                String seen = threshold > 0 ? sharedSessions(connections, first) : null;
                return seen == null ? null : String.format(REFUSAL, seen, threshold);
            });
        } catch (SQLException unanswered) {
            return; // not refused here: the first lock fails clearly
        }
        if (refusal != null) {
            throw new IllegalStateException(refusal);
        }
    }

    /**
     * @return pgJDBC's prepareThreshold for this connection (through the pool's wrapper), 0 where the
     * driver is not pgJDBC
     */
    private static int prepareThreshold(Connection connection) throws SQLException {
        List<ClassLoader> loaders = new ArrayList<>();
        loaders.add(connection.unwrap(Connection.class).getClass().getClassLoader());
        loaders.add(Thread.currentThread().getContextClassLoader());
        loaders.add(TransactionPooling.class.getClassLoader());
        for (ClassLoader loader : loaders) {
            try {
                Class<?> pgJdbc = Class.forName(PG_CONNECTION, false, loader);
                if (connection.isWrapperFor(pgJdbc)) {
                    Method threshold = pgJdbc.getMethod("getPrepareThreshold");
                    return threshold.invoke(connection.unwrap(pgJdbc)) instanceof Integer value ? value : 0;
                }
            } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException
                     | InvocationTargetException notHere) {
                // not pgJDBC, or not seen from this loader
            }
        }
        return 0;
    }

    /**
     * Reads the server session of one connection, then of a second one, in turn, each read a
     * transaction of its own; a few rounds, where other clients may come between. None is kept
     * open: a pooler with one server session would keep the other waiting.
     *
     * @return what shows transaction pooling, or null if nothing does
     */
    private static String sharedSessions(LockConnections connections, Connection first) throws SQLException {
        Connection second;
        try {
            second = connections.open(CallBounds.brief().borrowNanos());
        } catch (NoFreeConnection none) {
            return null;
        }
        try {
            boolean autoCommit = second.getAutoCommit();
            try {
                second.setAutoCommit(true);
                List<Integer> firsts = new ArrayList<>();
                List<Integer> seconds = new ArrayList<>();
                for (int round = 0; round < ROUNDS; round++) {
                    firsts.add(session(first));
                    seconds.add(session(second));
                    if (firsts.get(round).equals(seconds.get(round))) {
                        return "two of its connections were served by one server session (pid " + firsts.get(round) + ")";
                    }
                }
                if (new HashSet<>(firsts).size() > 1 || new HashSet<>(seconds).size() > 1) {
                    return "its connections were served by other server sessions in their next transactions (pids "
                            + firsts + " and " + seconds + ")";
                }
                return null;
            } finally {
                second.setAutoCommit(autoCommit);
            }
        } finally {
            connections.close(second);
        }
    }

    private static int session(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(SESSION)) {
            row.next();
            return row.getInt(1);
        }
    }
}
