package io.locked.jpa.internal.nativepath;

import io.locked.jpa.internal.dialect.Dialect;
import io.locked.spi.Lease;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Takes that answer by the count of rows found and the token as the insert id: MySQL's every take
 * ({@link Dialect#answersByInsertId}), and MariaDB's take of a key whose row this store has met
 * ({@link Dialect#takeRowText}): an {@code UPDATE}, without the insert that its upsert tries first and the
 * row it sends back, which were about a tenth of a one-thread optimistic cycle there (docs/performance.md).
 * A key met first goes through the upsert, which creates a missing row, so that a key used once costs no
 * statement more; a remembered key whose row a cleanup deleted costs one more, once. At most
 * {@value #KEYS_REMEMBERED} keys are remembered: past that the memory starts again. A driver set to count changed
 * rows rather than found ones ({@code useAffectedRows=true}) counts none for a busy take, which then goes to the
 * upsert as for a missing row: one statement more, the right answer.
 */
final class InsertIdTakes {
    static final int KEYS_REMEMBERED = 4096;
    private final Dialect database;
    /** Whether the database has a take of an existing row as an {@code UPDATE} (MariaDB). */
    private final boolean takesRows;
    private final Set<String> rowsMet = ConcurrentHashMap.newKeySet();
    /** Whether a row take has come back with its token as the insert id: only then does none mean "held". */
    private volatile boolean insertIdsGiven;

    InsertIdTakes(Dialect database) {
        this.database = database;
        this.takesRows = database.takeRowText("", "", 0, "", 0) != null;
    }

    /**
     * @param waitMillis how long the take may wait for a pessimistic holder's row lock (MySQL's never waits)
     * @return the take's answer, or null where the caller sends the database's own take: a key not met yet,
     *         or whose row is gone
     */
    LeaseTake take(Connection connection, String key, String owner, String holder, long leaseMicros, long waitMillis)
            throws SQLException {
        if (database.answersByInsertId()) {
            return take(connection, key, owner, database.takeLeaseText(owner, holder, leaseMicros, key, 0, false));
        }
        if (!takesRows || !rowsMet.contains(key)) {
            return null;
        }
        LeaseTake took = take(connection, key, owner, database.takeRowText(owner, holder, leaseMicros, key, waitMillis));
        if (took.noRow()) {
            rowsMet.remove(key); // a cleanup deleted it: the database's own take creates it again
            return null;
        }
        if (took.lease() != null) {
            insertIdsGiven = true;
            return took;
        }
        // held, or taken by a driver (or a proxy) that gives no insert id: until one has come, the upsert tells,
        // taking again the lease that this statement may have taken (its own owner's)
        return insertIdsGiven ? took : null;
    }

    /** The database's own take found the key's row, or made it. */
    void rowMet(String key) {
        if (takesRows) {
            if (rowsMet.size() >= KEYS_REMEMBERED) {
                rowsMet.clear();
            }
            rowsMet.add(key);
        }
    }

    /** @return whether the key's row is remembered as met (tests) */
    boolean remembers(String key) {
        return rowsMet.contains(key);
    }

    private static LeaseTake take(Connection connection, String key, String owner, String sql) throws SQLException {
        try (Statement take = connection.createStatement()) {
            if (take.executeUpdate(sql, Statement.RETURN_GENERATED_KEYS) == 0) {
                return LeaseTake.NO_ROW;
            }
            long token = InsertIds.of(take);
            // the statement does not read the row's version back: 0, a diagnostic only
            return token != 0 ? new LeaseTake(new Lease(key, owner, token, 0), false) : LeaseTake.HELD;
        }
    }
}
