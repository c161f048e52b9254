package io.locked.jpa.internal.schema;

import io.locked.api.LockStoreUnavailableException;
import io.locked.jpa.LockRow;
import io.locked.jpa.internal.connection.CallBounds;
import io.locked.jpa.internal.connection.LockConnections;
import io.locked.jpa.internal.dialect.Dialect;
import io.locked.jpa.internal.dialect.FenceStatements;
import io.locked.jpa.internal.transaction.LockTransaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * The shipped schema script of a database family: the lock table and the fence table of
 * {@code LockFence}, for demos and tests (production runs its migrations). Both lock paths use it.
 */
public final class SchemaScript {
    /** How often the script runs at most, where another JVM's creation of the same tables gets in its way. */
    private static final int CREATION_ATTEMPTS = 3;
    private SchemaScript() {
    }

    /**
     * Runs the script where the tables do not exist. Where both exist it sends no DDL at all: on a
     * Galera cluster even {@code CREATE TABLE IF NOT EXISTS} is replicated in total order and aborts
     * every transaction holding a row of the table, on every node: pessimistic holders among them.
     */
    public static void createTablesIfMissing(LockConnections connections, Dialect database) {
        String script = ShippedScript.read(database.schemaResource);
        SQLException failed = null;
        // JVMs starting at once on a new database create the same tables at once, and PostgreSQL's
        // CREATE TABLE IF NOT EXISTS fails (a duplicate pg_type row) when another session's creation of
        // the table commits during its own: the script then runs again, and finds the tables there
        for (int attempt = 0; attempt < CREATION_ATTEMPTS; attempt++) {
            try {
                LockTransaction.autocommit(connections, CallBounds.maintenance(), connection -> {
                    if (!tableExists(connection, LockRow.TABLE) || !tableExists(connection, FenceStatements.TABLE)) {
                        runScript(connection, script);
                    }
                    return null;
                });
                return;
            } catch (SQLException failure) {
                if (failed != null) {
                    failure.addSuppressed(failed);
                }
                failed = failure;
                if (failure.getSQLState() != null && failure.getSQLState().startsWith("08")) {
                    break; // no connection: another attempt would only wait longer for the same answer
                }
            }
        }
        throw new LockStoreUnavailableException("(schema)", "creating the lock and fence tables failed", failed);
    }

    private static void runScript(Connection connection, String script) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (String part : script.split(";")) {
                String sql = part.lines().filter(line -> !line.trim().startsWith("--"))
                        .reduce("", (a, b) -> a + "\n" + b).trim();
                if (!sql.isEmpty()) {
                    statement.execute(sql);
                }
            }
        }
    }

    /**
     * @param connections the unit's connections, null where Locked cannot reach them (then false)
     * @return whether the database answers and has no lock table; false where it does not answer (a
     *         database that is down fails the first lock, and the readiness check, clearly)
     */
    public static boolean lockTableMissing(LockConnections connections) {
        return connections != null && !lockTableExists(connections).orElse(true);
    }

    private static Optional<Boolean> lockTableExists(LockConnections connections) {
        Connection connection;
        try {
            connection = connections.open();
        } catch (SQLException unreachable) {
            return Optional.empty();
        }
        try (Statement probe = connection.createStatement();
             ResultSet none = probe.executeQuery("SELECT 1 FROM " + LockRow.TABLE + " WHERE 1 = 0")) {
            return Optional.of(true);
        } catch (SQLException failed) {
            // SQLSTATE class 08: the connection failed, which says nothing about the table
            String state = failed.getSQLState();
            return state != null && state.startsWith("08") ? Optional.empty() : Optional.of(false);
        } finally {
            try {
                connections.close(connection);
            } catch (SQLException ignored) {
                // the answer is known; the pool deals with a connection it cannot take back
            }
        }
    }

    // a query that reads no row: it fails only when the table is missing
    private static boolean tableExists(Connection connection, String table) {
        try (Statement probe = connection.createStatement();
             ResultSet none = probe.executeQuery("SELECT 1 FROM " + table + " WHERE 1 = 0")) {
            return true;
        } catch (SQLException missing) {
            return false;
        }
    }
}
