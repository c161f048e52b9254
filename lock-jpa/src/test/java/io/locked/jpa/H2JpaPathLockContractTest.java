package io.locked.jpa;

import io.locked.jpa.testing.TestDatabase;

/** The lock contract on H2 through the JPA path: EntityManager, PESSIMISTIC_WRITE, @Version. */
class H2JpaPathLockContractTest extends JpaLockContractSuite {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Override
    LockStatements statements() {
        return LockStatements.JPA;
    }

    /** Its look at a row held PESSIMISTIC waits out H2's lock timeout (2 s) before it says "held". */
    @Override
    public boolean readsPessimisticRowsForReadWrite() {
        return false;
    }
}
