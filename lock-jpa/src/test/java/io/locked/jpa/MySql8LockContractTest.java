package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on MySQL 8, a private server of this JVM, through Connector/J with its default properties. */
class MySql8LockContractTest extends NativeLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.MYSQL8;
    }
}
