package io.locked.jpa.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The transactions InnoDB lists in {@code SHOW ENGINE INNODB STATUS}, written at each call. Not
 * {@code information_schema.innodb_trx}: that is a copy InnoDB refreshes only when nobody read it for
 * 100 ms, so a read soon after another (the end check of the test before, another poller on the same
 * server) may get a list taken before the transaction it looks for began.
 */
public final class InnoDbTransactions {
    // "MariaDB thread id 1320, OS thread handle 1312..., query id 1338 127.0.0.1 locked_c Update" ("MySQL thread id" on MySQL)
    private static final Pattern THREAD_LINE = Pattern.compile("thread id (\\d+), OS thread handle \\d+, query id \\d+ \\S+ (\\S+)");

    private InnoDbTransactions() {
    }

    /**
     * @param observer a connection with the PROCESS privilege
     * @return the list's entries, one per session's transaction, each from its {@code ---TRANSACTION} line on
     */
    public static List<String> of(Connection observer) throws SQLException {
        try (Statement statement = observer.createStatement();
             ResultSet status = statement.executeQuery("SHOW ENGINE INNODB STATUS")) {
            status.next();
            String text = status.getString("Status");
            int list = text.indexOf("LIST OF TRANSACTIONS FOR EACH SESSION:");
            if (list < 0) {
                throw new IllegalStateException("SHOW ENGINE INNODB STATUS has no transaction list:\n" + text);
            }
            int end = text.indexOf("\n--------\nFILE I/O", list);
            String[] entries = text.substring(list, end < 0 ? text.length() : end).split("\n---TRANSACTION ");
            return Arrays.asList(entries).subList(1, entries.length);
        }
    }

    /** @return whether the entry's transaction is open (InnoDB also lists sessions with none begun) */
    public static boolean active(String transaction) {
        return transaction.contains(", ACTIVE");
    }

    /** @return the user of the entry's session, or null where the entry names none */
    public static String userOf(String transaction) {
        Matcher thread = THREAD_LINE.matcher(transaction);
        return thread.find() ? thread.group(2) : null;
    }

    /**
     * @param observer a connection with the PROCESS privilege, in the database looked at
     * @param user     whose sessions
     * @return the user's sessions in the observer's database with a transaction open, the observer's own excepted
     */
    public static List<Long> activeSessions(Connection observer, String user) throws SQLException {
        List<String> active = new ArrayList<>();
        for (String transaction : of(observer)) {
            Matcher thread = THREAD_LINE.matcher(transaction);
            if (active(transaction) && thread.find()) {
                active.add(thread.group(1));
            }
        }
        List<Long> sessions = new ArrayList<>();
        if (active.isEmpty()) {
            return sessions;
        }
        // the status names no database: the server's session list does
        try (PreparedStatement mine = observer.prepareStatement("SELECT id FROM information_schema.processlist"
                + " WHERE user = ? AND db = DATABASE() AND id <> CONNECTION_ID() AND id IN ("
                + active.stream().collect(Collectors.joining(",")) + ")")) {
            mine.setString(1, user);
            try (ResultSet rows = mine.executeQuery()) {
                while (rows.next()) {
                    sessions.add(rows.getLong(1));
                }
            }
        }
        return sessions;
    }

    /**
     * Ends, as an operator's {@code KILL} would, the sessions {@link #activeSessions} finds.
     *
     * @return the sessions ended
     */
    public static List<Long> endActiveSessions(Connection observer, String user) throws SQLException {
        List<Long> sessions = activeSessions(observer, user);
        try (Statement kill = observer.createStatement()) {
            for (long session : sessions) {
                kill.execute("KILL " + session);
            }
        }
        return sessions;
    }
}
