package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;
import java.util.Map;

/**
 * The lock contract on MySQL 8 with Connector/J counting changed rows rather than found rows
 * ({@code useAffectedRows=true}, not its default): a take or a lock that finds the key held then
 * changes nothing and counts 0, as if the key had no row. The statements must still answer "busy"
 * (they create no second row and draw no token), at the price of a creation attempt.
 */
class MySql8AffectedRowsContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL8;
    }

    @Override
    Map<String, String> driverProperties() {
        return Map.of("useAffectedRows", "true");
    }
}
