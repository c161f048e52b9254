package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on H2. */
class H2LockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
