package io.locked.jpa.internal.inspection;

import io.locked.api.LockMode;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.HolderSession;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Inspection on the native path: who holds which key, across JVMs and in both modes, read straight
 * from the lock table and the database's own view of its sessions.
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
 * On MariaDB and MySQL a single key, and named keys (a key's holders, a writer's reader slots), are
 * first read with {@code FOR UPDATE NOWAIT} alone. Where no transaction row-locks those rows, that read
 * answers: the rows it returns have committed columns, and a missing row means none exists (a row
 * another transaction has just inserted is row-locked by it, and fails the read). So the common look
 * at rows nobody holds pessimistically is one statement. {@link #inspectLeases} reads committed rows for
 * a caller to which pessimistic holds do not matter. A forced release ({@link ForcedRelease}) ends the
 * hold read here.
 */
public final class NativeInspection {
    /** The most rows one page may ask for. */
    static final int MAX_PAGE = 1000;
    private final Dialect database;
    private final InspectionCalls calls;
    private final String selectRows;
    /** A read of the rows without the holders' sessions: plain, it sees the committed rows. */
    private final String selectCommittedRows;
    /** Whether rows are first read with a locking read that fails at once on a row-locked row ({@link #readIfUnlocked}). */
    private final boolean refusesLockedRows;

    public NativeInspection(LockConnections connections, Dialect database) {
        this.database = database;
        this.calls = new InspectionCalls(connections);
        String live = "CASE WHEN l.owner IS NOT NULL AND l.expires_at > " + database.now + " THEN 1 ELSE 0 END";
        String columns = "l.lock_key, l.owner, l.holder, l.token, " + micros("l.acquired_at") + ", "
                + micros("l.expires_at") + ", " + live;
        this.selectRows = database.selectRows(columns);
        this.selectCommittedRows = "SELECT " + columns + " FROM " + LockRow.TABLE + " l WHERE ";
        this.refusesLockedRows = database.refusesLockedRowsAtOnce() && !database.showsHolderSessions();
    }

    public Optional<LockRowState> inspect(String key) {
        if (refusesLockedRows) {
            // the common look, at a key no transaction row-locks (a reader group's at the writer row)
            Optional<List<LockRowState>> unlocked = readIfUnlocked(key, "l.lock_key = ?", List.of(key), 1);
            if (unlocked.isPresent()) {
                return unlocked.get().stream().findFirst();
            }
        }
        return read(key, "l.lock_key = ?", List.of(key), 1).stream().findFirst();
    }

    /**
     * A page of rows under a prefix, for an operator. It is not first read as one key is: the instant's
     * locks of that read would cover many keys' rows and the gaps between them.
     */
    public List<LockRowState> list(String prefix, String afterKey, int limit) {
        String filter = "l.lock_key LIKE ? ESCAPE '!' AND l.lock_key > ?";
        return read(prefix + "*", filter, List.of(likePrefix(prefix), afterKey == null ? "" : afterKey), limit);
    }

    /**
     * The rows of the named keys that have one, as {@link #inspect} reads one: a writer's look at its
     * key's reader slots. The keys are named rather than matched by prefix, so that each row is found
     * through the primary key's index whatever the column's collation and the table's size (PostgreSQL
     * uses no index for {@code LIKE 'prefix%'} under a collation other than {@code C}). Where the
     * database serves a prefix from the index, one key's reader slots, all of them, are read by their
     * prefix instead: one range rather than a look-up per key (a writer's look on MariaDB costs about
     * 90 µs less so). As a single key is, they are first read with {@code FOR UPDATE NOWAIT} where the
     * database refuses a locked row at once, which answers alone where no transaction row-locks any of
     * them.
     */
    public List<LockRowState> inspectAll(List<String> keys) {
        Named named = named(keys);
        if (refusesLockedRows) {
            Optional<List<LockRowState>> unlocked = readIfUnlocked(about(keys), named.filter, named.parameters,
                    keys.size());
            if (unlocked.isPresent()) {
                return unlocked.get();
            }
        }
        return read(about(keys), named.filter, named.parameters, keys.size());
    }

    /**
     * As {@link #inspectAll}, one plain read of the committed rows: only a live lease shows as held, since
     * a pessimistic hold's row lock and row change are not looked for.
     */
    public List<LockRowState> inspectLeases(List<String> keys) {
        Named named = named(keys);
        String sql = selectCommittedRows + named.filter + " ORDER BY l.lock_key LIMIT " + keys.size();
        return calls.call(about(keys), "reading the lock rows", connection ->
                rows(connection, sql, named.parameters, false).stream().map(row -> row.state(false)).toList());
    }

    /** How a read finds named keys: its condition on the rows, and the parameters of that condition. */
    private record Named(String filter, List<String> parameters) {
    }

    /**
     * {@code l.lock_key IN (?, ...)}, a parameter per key (one statement text per count of keys); or,
     * where the database serves a prefix from the index and the keys are all reader slots of one key, in
     * slot order, their prefix: no other row's key starts with it, since no lock key holds the slot mark.
     */
    private Named named(List<String> keys) {
        if (keys.isEmpty() || keys.size() > MAX_PAGE) {
            throw new IllegalArgumentException("Keys to inspect at once must be 1 to " + MAX_PAGE + ", were " + keys.size());
        }
        String readKey = database.servesPrefixesFromIndex() ? LockRows.readerSlotsOf(keys) : null;
        String slots = readKey == null ? null : LockRows.readerSlotPrefix(readKey);
        return slots == null ? new Named("l.lock_key IN (" + "?, ".repeat(keys.size() - 1) + "?)", keys)
                : new Named("l.lock_key LIKE ? ESCAPE '!'", List.of(likePrefix(slots)));
    }

    /** @return what a failure to read the keys names: the first key, and how many more */
    public static String about(List<String> keys) {
        return keys.size() == 1 ? keys.get(0) : keys.get(0) + " and " + (keys.size() - 1) + " more keys";
    }

    /**
     * The rows, in one locking read that fails at once on a row-locked row ({@code FOR UPDATE NOWAIT}).
     * Where it answers, no transaction row-locks any of them: each row it returns is free or leased, with
     * its columns committed, and a key it does not return has no row (a row another transaction has just
     * inserted is locked by it, and fails the read).
     *
     * @return empty where a transaction row-locks one of the rows: only the whole read shows that holder
     */
    private Optional<List<LockRowState>> readIfUnlocked(String about, String filter, List<String> parameters,
                                                        int limit) {
        String sql = selectCommittedRows + filter + " ORDER BY l.lock_key LIMIT " + limit + " FOR UPDATE NOWAIT";
        return calls.call(about, "reading the lock rows", connection -> {
            try {
                return Optional.of(rows(connection, sql, parameters, false).stream().map(row -> row.state(false)).toList());
            } catch (SQLException busy) {
                if (LockConflicts.isBusy(busy)) {
                    return Optional.empty();
                }
                throw busy;
            }
        });
    }

    private List<LockRowState> read(String about, String filter, List<String> parameters, int limit) {
        String sql = selectRows + filter + " ORDER BY l.lock_key LIMIT " + limit;
        return calls.call(about, "reading the lock rows", connection -> {
            boolean sessions = database.showsHolderSessions();
            List<Row> rows = sessions
                    ? rows(connection, sql, parameters, true)
                    : database.readUncommitted(connection, c -> rows(c, sql, parameters, false));
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

        LockRowState state(boolean rowLocked) {
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

    /** @param sessions whether the statement also reads the holders' sessions ({@link Dialect#selectRows}) */
    private List<Row> rows(Connection connection, String sql, List<String> parameters, boolean sessions)
            throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.size(); i++) {
                read.setString(i + 1, parameters.get(i));
            }
            List<Row> rows = new ArrayList<>();
            try (ResultSet result = read.executeQuery()) {
                while (result.next()) {
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
