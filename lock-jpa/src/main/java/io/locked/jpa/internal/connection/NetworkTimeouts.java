package io.locked.jpa.internal.connection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * A connection's network timeout, set for the length of a store call and put back after.
 * mysql-connector-j, the MariaDB driver and the PostgreSQL driver keep it as the socket's read
 * timeout, set and read locally without a round trip; H2 (embedded, no socket) ignores it. Past it
 * the driver gives up on the statement and the connection, which the pool then drops.
 */
public final class NetworkTimeouts {
    /** What {@link #apply} answers for a driver without network timeouts: nothing to put back. */
    public static final int NOT_SET = -1;

    private NetworkTimeouts() {
    }

    /** @return the timeout the connection had, for {@link #restore}, or {@link #NOT_SET} */
    public static int apply(Connection connection, int millis) throws SQLException {
        try {
            int before = connection.getNetworkTimeout();
            if (before != millis) {
                connection.setNetworkTimeout(Runnable::run, millis);
            }
            return before;
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException noTimeouts) {
            return NOT_SET;
        }
    }

    /**
     * Raises the connection's timeout to at least millis, for a statement the server may end later than
     * the call's bound; {@link #restore} with millis puts the call's back.
     *
     * @return the timeout the connection had, or {@link #NOT_SET} where it had none or a longer one
     */
    public static int atLeast(Connection connection, int millis) throws SQLException {
        try {
            int before = connection.getNetworkTimeout();
            if (before <= 0 || before >= millis) {
                return NOT_SET; // none (H2), or long enough already
            }
            connection.setNetworkTimeout(Runnable::run, millis);
            return before;
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException noTimeouts) {
            return NOT_SET;
        }
    }

    /** Sets the timeout on a connection whose earlier one {@link #apply} saved; nothing if there was none. */
    public static void change(Connection connection, int before, int millis) throws SQLException {
        if (before != NOT_SET) {
            connection.setNetworkTimeout(Runnable::run, millis);
        }
    }

    /** Puts back what {@link #apply} found, if the call changed it. */
    public static void restore(Connection connection, int before, int now) throws SQLException {
        if (before != NOT_SET && before != now) {
            connection.setNetworkTimeout(Runnable::run, before);
        }
    }
}
