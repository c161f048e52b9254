package io.locked.jpa.internal.dialect;

/**
 * How a pessimistic holder's database session can be found by another JVM, for inspection and
 * forced release. The holder's row change is uncommitted while it holds the lock, so each database
 * shows it differently:
 * <ul>
 *   <li>MariaDB, MySQL and H2 read uncommitted rows, so the lock statement writes its session id
 *   into the holder column, after the holder text ({@link #MARK}); the mark is cut off again when
 *   the holder is shown.</li>
 *   <li>PostgreSQL reads no uncommitted row. The row's {@code xmax} names the holder's transaction,
 *   {@code pg_stat_activity} its backend; the lock statement publishes token and holder as that
 *   session's {@code application_name} for the length of its transaction
 *   ({@code set_config(..., true)}), where other sessions of the same role can read them.</li>
 * </ul>
 */
public final class HolderSession {
    /** Between the holder text and the session id in the holder column. */
    static final String MARK = " db-session=";
    /** What a PostgreSQL lock transaction's application_name starts with: then the token, a space, the holder. */
    public static final String PUBLISHED = "locked ";
    /** The holder column is 255 characters; the mark and a session id take at most 32 of them. */
    private static final int HOLDER_TEXT_LENGTH = 220;
    /** PostgreSQL keeps the first 63 bytes of an application_name. */
    private static final int APPLICATION_NAME_LENGTH = 63;

    private HolderSession() {
    }

    /**
     * The value a pessimistic lock statement writes to the holder column for the holder parameter.
     *
     * @param sessionId the database's expression for the statement's own session id
     */
    static String holderValue(String sessionId) {
        return "CONCAT(LEFT(?, " + HOLDER_TEXT_LENGTH + "), '" + MARK + "', " + sessionId + ")";
    }

    /** PostgreSQL: a RETURNING column that publishes token and holder until the transaction ends. */
    static String publishedAfterLock(String token, String holder) {
        return "set_config('application_name', LEFT('" + PUBLISHED + "' || " + token + " || ' ' || " + holder + ", "
                + APPLICATION_NAME_LENGTH + "), true)";
    }

    /** The holder text without the session mark. */
    public static String holderText(String column) {
        if (column == null) {
            return null;
        }
        int mark = column.lastIndexOf(MARK);
        return mark < 0 ? column : column.substring(0, mark);
    }

    /** The session id the holder column names, null if it names none. */
    public static String sessionOf(String column) {
        if (column == null) {
            return null;
        }
        int mark = column.lastIndexOf(MARK);
        return mark < 0 ? null : column.substring(mark + MARK.length());
    }
}
