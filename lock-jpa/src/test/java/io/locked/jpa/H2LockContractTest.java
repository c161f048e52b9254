package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on the native path on H2. */
class H2LockContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
