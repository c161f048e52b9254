package io.locked.it.server;

import io.locked.jpa.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * A database as worker JVMs reach it: which {@link TestDatabase} they open, the environment that
 * points it at this server, and a plain connection for the test's own reads and writes.
 */
public interface WorkerDatabase {
    /** @return the database the workers open, by the name they are given */
    TestDatabase database();

    /** @return what a worker JVM's environment needs to reach this server as {@link #database()} */
    Map<String, String> workerEnvironment();

    /** @return a plain connection, outside any pool */
    Connection connect() throws SQLException;
}
