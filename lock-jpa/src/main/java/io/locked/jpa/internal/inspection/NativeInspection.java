package io.locked.jpa.internal.inspection;

import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.LockConflicts;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.HolderSession;
import io.locked.jpa.internal.dialect.HolderSessions;
import io.locked.spi.LockRowState;
import io.locked.spi.LockRows;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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
        return slots == null ? new Named(keyIn("l.lock_key", keys.size()), keys)
                : new Named("l.lock_key LIKE ? ESCAPE '!'", List.of(likePrefix(slots)));
    }

    /** @return a condition that the key column given is one of that many keys, a placeholder each */
    private static String keyIn(String column, int count) {
        return column + " IN (" + "?, ".repeat(count - 1) + "?)";
    }

    private static void bind(PreparedStatement statement, List<String> parameters) throws SQLException {
        for (int i = 0; i < parameters.size(); i++) {
            statement.setString(i + 1, parameters.get(i));
        }
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
            List<InspectedRow> rows = sessions
                    ? rows(connection, sql, parameters, true)
                    : database.readUncommitted(connection, c -> database.readsUncommittedKeysFirst()
                            ? rowsOfKeysFound(c, filter, parameters, limit) : rows(c, sql, parameters, false));
            Set<String> rowLocked = sessions ? Set.of() : rowLocked(connection, rows);
            List<LockRowState> states = new ArrayList<>(rows.size());
            for (InspectedRow row : rows) {
                states.add(row.state(rowLocked.contains(row.key())));
            }
            return states;
        });
    }

    /** @param sessions whether the statement also reads the holders' sessions ({@link Dialect#selectRows}) */
    private List<InspectedRow> rows(Connection connection, String sql, List<String> parameters, boolean sessions)
            throws SQLException {
        try (PreparedStatement read = connection.prepareStatement(sql)) {
            bind(read, parameters);
            List<InspectedRow> rows = new ArrayList<>();
            try (ResultSet result = read.executeQuery()) {
                while (result.next()) {
                    rows.add(new InspectedRow(result.getString(1), result.getString(2), result.getString(3), result.getLong(4),
                            nullableLong(result, 5), nullableLong(result, 6), result.getInt(7) == 1,
                            sessions ? (Integer) result.getObject(8, Integer.class) : null,
                            sessions ? result.getString(9) : null, sessions ? nullableLong(result, 10) : null));
                }
            }
            return rows;
        }
    }

    /** The rows under the filter, their keys read first from the key's index alone ({@link HolderSessions#readsUncommittedKeysFirst}). */
    private List<InspectedRow> rowsOfKeysFound(Connection connection, String filter, List<String> parameters, int limit)
            throws SQLException {
        List<String> keys = new ArrayList<>();
        try (PreparedStatement find = connection.prepareStatement("SELECT l.lock_key FROM " + LockRow.TABLE + " l WHERE "
                + filter + " ORDER BY l.lock_key LIMIT " + limit)) {
            bind(find, parameters);
            try (ResultSet found = find.executeQuery()) {
                while (found.next()) {
                    keys.add(found.getString(1));
                }
            }
        }
        if (keys.isEmpty()) {
            return List.of();
        }
        String byKey = selectRows + keyIn("l.lock_key", keys.size()) + " ORDER BY l.lock_key";
        return rows(connection, byKey, keys, false);
    }

    /** The keys among the rows that a transaction row-locks right now. */
    private Set<String> rowLocked(Connection connection, List<InspectedRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return Set.of();
        }
        List<String> keys = rows.stream().map(InspectedRow::key).toList();
        Set<String> locked = new HashSet<>(keys);
        try (PreparedStatement free = connection.prepareStatement("SELECT lock_key FROM " + LockRow.TABLE + " WHERE "
                + keyIn("lock_key", keys.size()) + " FOR UPDATE SKIP LOCKED")) {
            bind(free, keys);
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
}
