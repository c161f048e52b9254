package io.locked.jpa.internal.inspection;

import io.locked.api.LockMode;
import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.dialect.HolderSession;
import io.locked.jpa.internal.fence.FenceDetection;
import io.locked.jpa.internal.fence.JdbcFenceTransaction;
import io.locked.jpa.internal.transaction.LockTransaction;
import io.locked.spi.LockRowState;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Inspection and forced release on the native path: who holds which key, across JVMs and in both
 * modes, read straight from the lock table and the database's own view of its sessions.
 *
 * <p>An optimistic lease is committed in its row. A pessimistic hold is a row lock, and its row
 * change (holder, token) is not committed until it ends, so:
 * <ul>
 *   <li>MariaDB, MySQL and H2: the rows are read uncommitted, which shows a holder's change, and a
 *   {@code FOR UPDATE SKIP LOCKED} read of the same keys tells which rows are row-locked right now
 *   (it locks each free row for the instant of that statement);</li>
 *   <li>PostgreSQL: the row's {@code xmax} names the transaction that row-locks it, and
 *   {@code pg_stat_activity} its session, whose {@code application_name} the lock statement set to
 *   token and holder ({@link HolderSession}).</li>
 * </ul>
 * A forced release ends a pessimistic holder's session, only while the hold it read is still open
 * ({@link Dialect#endHold}): the database rolls its transaction back and frees the row. Then, in one
 * transaction, it frees the row, draws the key's next token and raises the key's fence row to it, so
 * that the old holder's fenced writes are refused.
 */
public final class NativeInspection {
    /** The most rows one page may ask for. */
    public static final int MAX_PAGE = 1000;
    /** How long reading a page, or each step of a forced release, may take. */
    private static final Duration BOUND = Duration.ofSeconds(10);
    /** How long a forced release waits for an ended session's row lock to go. */
    private static final int ROW_LOCK_WAIT_SECONDS = 5;
    private final LockConnections connections;
    private final Dialect database;
    private final String selectRows;

    public NativeInspection(LockConnections connections, Dialect database) {
        this.connections = connections;
        this.database = database;
        String live = "CASE WHEN l.owner IS NOT NULL AND l.expires_at > " + database.now + " THEN 1 ELSE 0 END";
        String columns = "l.lock_key, l.owner, l.holder, l.token, " + micros("l.acquired_at") + ", "
                + micros("l.expires_at") + ", " + live;
        this.selectRows = database.selectRows(columns);
    }

    public Optional<LockRowState> inspect(String key) {
        return read(key, "l.lock_key = ?", List.of(key), 1).stream().findFirst();
    }

    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        return read(prefix + "*", "l.lock_key LIKE ? ESCAPE '!' AND l.lock_key > ?",
                List.of(likePrefix(prefix), afterKey == null ? "" : afterKey), limit);
    }

    /**
     * Ends the key's current hold, whoever holds it: the hold read here, and no other.
     *
     * @return the hold that was ended, empty if the key was free or the hold read ended by itself
     *         before it could be ended (the key may have a new holder by then)
     */
    public Optional<LockRowState> forceRelease(String key) {
        Optional<LockRowState> held = inspect(key).filter(LockRowState::held);
        if (held.isEmpty()) {
            return Optional.empty();
        }
        LockRowState hold = held.get();
        if (hold.mode() == LockMode.PESSIMISTIC && !endSession(hold)) {
            // its session may be doing other work now, or hold the key again: that is not this hold
            return Optional.empty();
        }
        boolean fenced = fenceTableExists(key);
        try (LockTransaction transaction = LockTransaction.begin(connections, database.startsTransactionsBySql(), CallBounds.within(BOUND))) {
            Connection connection = transaction.connection();
            LockedRow row = lockRow(connection, key);
            if (row != null && row.releasedItself(hold)) {
                return Optional.empty(); // its own release committed just before its session was ended
            }
            if (row == null && hold.mode() == LockMode.PESSIMISTIC) {
                // the ended hold had created the row, and its rollback took the row with it: the next
                // token must still come after the ended one's, and the fence must know it
                try (PreparedStatement create = database.insertIfAbsent(connection, key, ROW_LOCK_WAIT_SECONDS * 1000L)) {
                    create.execute();
                }
                row = lockRow(connection, key);
            }
            if (row == null || !row.stillHeldBy(hold)) {
                if (hold.mode() == LockMode.OPTIMISTIC) {
                    return Optional.empty(); // the lease ended by itself: nothing was forced
                }
                // the session is ended, and a new holder took the key at once with a later token: its
                // row stays as it is, and the fence refuses only the ended hold's late writes
                if (fenced) {
                    FenceDetection.of(connection).raise(new JdbcFenceTransaction(connection), key, endedToken(hold) + 1);
                }
                transaction.commit();
                return held;
            }
            long token = freeWithNextToken(connection, key);
            if (fenced) {
                FenceDetection.of(connection).raise(new JdbcFenceTransaction(connection), key, token);
            }
            transaction.commit();
            return held;
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, "forcing the release failed", failure);
        }
    }

    private List<LockRowState> read(String about, String filter, List<String> parameters, int limit) {
        String sql = selectRows + filter + " ORDER BY l.lock_key LIMIT " + limit;
        return call(about, "reading the lock rows", connection -> {
            List<Row> rows = database.showsHolderSessions()
                    ? rows(connection, sql, parameters)
                    : LockTransaction.readAt(connection, Connection.TRANSACTION_READ_UNCOMMITTED, c -> rows(c, sql, parameters));
            Set<String> rowLocked = database.showsHolderSessions() ? Set.of() : rowLocked(connection, rows);
            List<LockRowState> states = new ArrayList<>(rows.size());
            for (Row row : rows) {
                states.add(row.state(rowLocked.contains(row.key)));
            }
            return states;
        });
    }

    /** One row as read, with the session that row-locks it where PostgreSQL tells (else nulls). */
    private record Row(String key, String owner, String holder, long token, Long acquiredMicros, Long expiresMicros,
                       boolean leaseLive, Integer sessionPid, String sessionName, Long sessionSinceMicros) {

        public LockRowState state(boolean rowLocked) {
            if (leaseLive) {
                return new LockRowState(key, LockMode.OPTIMISTIC, HolderSession.holderText(holder), token,
                        instant(acquiredMicros), instant(expiresMicros), owner, null);
            }
            if (sessionPid != null) {
                // PostgreSQL: held by the session whose transaction row-locks it; the row shows the last holder
                return publishedHold(key, sessionPid, sessionName, instant(sessionSinceMicros));
            }
            if (rowLocked) {
                return new LockRowState(key, LockMode.PESSIMISTIC, HolderSession.holderText(holder), token,
                        instant(acquiredMicros), null, null, HolderSession.sessionOf(holder));
            }
            return new LockRowState(key, null, HolderSession.holderText(holder), token, instant(acquiredMicros),
                    null, null, null);
        }
    }

    // "locked <token> <holder>", as the lock statement published it; another transaction (the JPA
    // path's, a cleanup's for an instant) shows the session only
    private static LockRowState publishedHold(String key, int pid, String name, Instant since) {
        Long token = null;
        String holder = null;
        if (name != null && name.startsWith(HolderSession.PUBLISHED)) {
            String rest = name.substring(HolderSession.PUBLISHED.length());
            int space = rest.indexOf(' ');
            try {
                token = Long.parseLong(space < 0 ? rest : rest.substring(0, space));
                holder = space < 0 ? null : rest.substring(space + 1);
            } catch (NumberFormatException notOurs) {
                token = null;
            }
        }
        return new LockRowState(key, LockMode.PESSIMISTIC, holder, token, since, null, null, String.valueOf(pid));
    }

    private List<Row> rows(Connection connection, String sql, List<String> parameters) throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                read.setString(i + 1, parameters.get(i));
            }
            List<Row> rows = new ArrayList<>();
            try (ResultSet result = read.executeQuery()) {
                while (result.next()) {
                    boolean sessions = database.showsHolderSessions();
                    rows.add(new Row(result.getString(1), result.getString(2), result.getString(3), result.getLong(4),
                            nullableLong(result, 5), nullableLong(result, 6), result.getInt(7) == 1,
                            sessions ? (Integer) result.getObject(8, Integer.class) : null,
                            sessions ? result.getString(9) : null, sessions ? nullableLong(result, 10) : null));
                }
            }
            return rows;
        }
    }

    /** The keys among the rows that a transaction row-locks right now. */
    private Set<String> rowLocked(Connection connection, List<Row> rows) throws SQLException {
        if (rows.isEmpty()) {
            return Set.of();
        }
        Set<String> locked = new HashSet<>();
        StringBuilder sql = new StringBuilder("SELECT lock_key FROM " + LockRow.TABLE + " WHERE lock_key IN (");
        for (Row row : rows) {
            locked.add(row.key);
            sql.append(locked.size() == 1 ? "?" : ", ?");
        }
        sql.append(") FOR UPDATE SKIP LOCKED");
        try (PreparedStatement free = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < rows.size(); i++) {
                free.setString(i + 1, rows.get(i).key);
            }
            try (ResultSet unlocked = free.executeQuery()) {
                while (unlocked.next()) {
                    locked.remove(unlocked.getString(1));
                }
            }
        }
        return locked;
    }

    private static long endedToken(LockRowState hold) {
        return hold.token() == null ? 0 : hold.token();
    }

    /**
     * Ends the session of a pessimistic hold, if that hold is still open ({@link Dialect#endHold}).
     *
     * @return false if the hold had ended, and nothing was ended
     */
    private boolean endSession(LockRowState hold) {
        String key = hold.key();
        if (hold.databaseSession() == null) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': the database does not tell"
                    + " which session holds it PESSIMISTIC (a holder that locked through the JPA path, or a"
                    + " transaction of another program). End that holder's process or transaction instead");
        }
        long session;
        try {
            session = Long.parseLong(hold.databaseSession());
        } catch (NumberFormatException garbled) {
            throw new IllegalStateException("Cannot force the release of '" + key + "': the holder column names no"
                    + " database session it can end: " + hold.databaseSession(), garbled);
        }
        long token = endedToken(hold);
        return call(key, "ending the holder's database session " + session,
                connection -> database.endHold(connection, key, token, hold.holder(), session),
                "the lock table's database user may end only its own sessions unless it is allowed to end others':"
                        + " CONNECTION ADMIN on MariaDB, CONNECTION_ADMIN or SUPER on MySQL, pg_signal_backend on"
                        + " PostgreSQL, ADMIN on H2");
    }

    /** The key's row as a forced release finds it once it holds the row lock. */
    private record LockedRow(String owner, boolean leaseLive, long token) {
        /**
         * Whether the forced hold is still the row's: the lease forced must still be that owner's,
         * and a pessimistic hold's row must not have been leased since.
         */
        public boolean stillHeldBy(LockRowState hold) {
            return hold.mode() == LockMode.OPTIMISTIC ? hold.owner().equals(owner) : !leaseLive;
        }

        /**
         * Whether a pessimistic hold ended by its own release rather than by its ended session: the
         * check and the end of the session are two steps on every database, and the holder may commit
         * between them. Its commit is the only way its token becomes the committed one: an ended
         * session rolls the token back.
         */
        public boolean releasedItself(LockRowState hold) {
            return hold.mode() == LockMode.PESSIMISTIC && hold.token() != null && hold.token() == token;
        }
    }

    /**
     * Row-locks the key's row, waiting for an ended session's rollback.
     *
     * @return null if the key has no row
     */
    private LockedRow lockRow(Connection connection, String key) throws SQLException {
        String lock = "SELECT owner, CASE WHEN owner IS NOT NULL AND expires_at > " + database.now
                + " THEN 1 ELSE 0 END, token FROM " + LockRow.TABLE + " WHERE lock_key = ? FOR UPDATE";
        lock = database.withRowLockWait(lock, ROW_LOCK_WAIT_SECONDS);
        try (PreparedStatement read = connection.prepareStatement(lock)) {
            read.setString(1, key);
            // execute, not executeQuery: Connector/J refuses a SET STATEMENT there, though it returns rows
            read.execute();
            try (ResultSet row = read.getResultSet()) {
                return row.next() ? new LockedRow(row.getString(1), row.getInt(2) == 1, row.getLong(3)) : null;
            }
        }
    }

    /** Frees the locked row and draws its next token, as an acquisition would; returns the token. */
    private long freeWithNextToken(Connection connection, String key) throws SQLException {
        String free = "UPDATE " + LockRow.TABLE + " SET owner = NULL, expires_at = NULL, version = version + 1,"
                + " token = GREATEST(token + 1, " + database.tokenMicros + ") WHERE lock_key = ?";
        free = database.drawingTokenInUtc(free);
        try (PreparedStatement update = connection.prepareStatement(free)) {
            update.setString(1, key);
            update.executeUpdate();
        }
        try (PreparedStatement read = connection.prepareStatement("SELECT token FROM " + LockRow.TABLE + " WHERE lock_key = ?")) {
            read.setString(1, key);
            try (ResultSet row = read.executeQuery()) {
                if (!row.next()) {
                    throw new SQLException("The row of '" + key + "' disappeared while it was row-locked");
                }
                return row.getLong(1);
            }
        }
    }

    private boolean fenceTableExists(String key) {
        return call(key, "looking for the fence table", connection -> {
            try (Statement look = connection.createStatement();
                 ResultSet none = look.executeQuery(FenceStatements.PROBE)) {
                return none.next();
            } catch (SQLException failure) {
                if (LockConflicts.isMissingTable(failure)) {
                    return false;
                }
                throw failure;
            }
        });
    }

    private <T> T call(String key, String what, LockTransaction.Work<T> work) {
        return call(key, what, work, null);
    }

    private <T> T call(String key, String what, LockTransaction.Work<T> work, String hint) {
        try {
            return LockTransaction.autocommit(connections, CallBounds.within(BOUND), work);
        } catch (SQLException failure) {
            throw new LockStoreUnavailableException(key, what + " failed" + (hint == null ? "" : " (" + hint + ")"), failure);
        }
    }

    private String micros(String column) {
        return database.micros(column);
    }

    /** A LIKE pattern for keys that start with the prefix, its wildcards escaped with '!'. */
    public static String likePrefix(String prefix) {
        return prefix.replace("!", "!!").replace("%", "!%").replace("_", "!_") + "%";
    }

    private static Long nullableLong(ResultSet row, int column) throws SQLException {
        long value = row.getLong(column);
        return row.wasNull() ? null : value;
    }

    private static Instant instant(Long micros) {
        return micros == null ? null : Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
    }
}
