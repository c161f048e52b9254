package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.HeldRowToken;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a pessimistic lock statement (or a hand-over's) drew: the token, whether the key was free, and the token clock
 * read after the token was drawn. A clock below the token means the clock is behind the row's
 * committed token (the token is then the row's plus one): the token is raised past what stores on
 * clock tokens may have rolled back, and committed ({@link io.locked.jpa.internal.transaction.TokenWrites}).
 *
 * @param node          the Galera node holding the row lock, null on other servers
 * @param createdUnseen whether the statement created the row, which others cannot see until it commits
 * @param clock         the token clock in microseconds, read after the token was drawn
 */
record DrawnToken(long token, boolean free, String node, boolean createdUnseen, long clock) {
    /** A live lease holds the key: no token drawn. */
    static final DrawnToken BUSY = withoutClock(0);

    /**
     * A token whose statement does not read the clock again (MySQL answers by its insert id): never
     * seen behind the clock. MySQL's native path commits every token.
     */
    static DrawnToken withoutClock(long token) {
        return new DrawnToken(token, token != 0, null, false, Long.MAX_VALUE);
    }

    boolean clockBehind() {
        return token > clock;
    }

    /**
     * The token raised to the clock read by a statement after the lock ({@link Dialect#tokenAfterRowLock}),
     * in the lock's transaction, where the lock statement read its clock at its start.
     */
    DrawnToken redrawnAfterLock(Dialect database, Connection connection, String key) throws SQLException {
        long[] tokenAndClock = redraw(database, connection, key);
        return new DrawnToken(tokenAndClock[0], free, node, createdUnseen, tokenAndClock[1]);
    }

    /**
     * Raises the row's token to the token clock read by this statement's start ({@link Dialect#tokenAfterRowLock}),
     * on a row the connection's caller holds.
     *
     * @return the row's token after the raise, and the clock read
     */
    static long[] redraw(Dialect database, Connection connection, String key) throws SQLException {
        try (PreparedStatement redraw = connection.prepareStatement(database.tokenAfterRowLock())) {
            redraw.setString(1, key);
            // execute, not executeQuery: Connector/J refuses an INSERT there, even one that returns rows
            redraw.execute();
            try (ResultSet row = redraw.getResultSet()) {
                if (row == null || !row.next()) {
                    throw new SQLException("The row of '" + key + "' did not answer the token's second draw");
                }
                return new long[] {row.getLong(1), row.getLong(2)};
            }
        }
    }

    /**
     * The next holder's token by the database's plain hand-over ({@link Dialect#handOverRowText}) on a row the
     * connection's transaction holds: the clock's reading, so never behind it.
     *
     * @return null where the database has none, or where it wrote nothing: the clock was not above the row's token
     */
    static DrawnToken byPlainHandOver(Dialect database, Connection connection, String holder, String key)
            throws SQLException {
        String handOver = database.handOverRowText(holder, key);
        if (handOver == null) {
            return null;
        }
        try (Statement update = connection.createStatement()) {
            if (update.executeUpdate(handOver, Statement.RETURN_GENERATED_KEYS) != 1) {
                return null;
            }
            long token = InsertIds.of(update);
            if (token == 0) { // a driver that does not give the insert id: the transaction reads its own write
                token = HeldRowToken.read(connection, key);
            }
            return new DrawnToken(token, true, null, false, token);
        }
    }

    /**
     * The token raised to {@code raised} in the locked row, in the lock's transaction; unchanged, without
     * a statement, where the raise is the token itself.
     *
     * @param raise token, key: an update of the row this transaction has locked
     */
    DrawnToken raisedTo(long raised, Connection connection, String key, String raise) throws SQLException {
        if (raised == token) {
            return this;
        }
        try (PreparedStatement update = connection.prepareStatement(raise)) {
            update.setLong(1, raised);
            update.setString(2, key);
            update.executeUpdate();
        }
        return new DrawnToken(raised, free, node, createdUnseen, clock);
    }
}
