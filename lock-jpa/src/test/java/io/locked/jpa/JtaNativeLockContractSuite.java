package io.locked.jpa;

/**
 * The lock contract on a JTA unit through the native path. Its statements are the native path's own,
 * the same as on a resource-local unit of the same database, which keeps its clock tokens the same
 * way too; the transaction manager only begins and ends the transactions they run in.
 */
abstract class JtaNativeLockContractSuite extends JtaLockContractSuite {
    @Override
    LockStatements statements() {
        return LockStatements.NATIVE;
    }

    // Not tests here, as they are on the same database's resource-local native suite (MariaDbLockContractTest,
    // PostgreSqlLockContractTest): a lock-delay is a time in the row that the lease's or the forced release's
    // statement computes on the database's clock, and the next holder's token is drawn by the same statement;
    // who begins and commits that statement's transaction cannot move either. Each waits out its delay (a
    // second or two per class). The forced release of a pessimistic holder on a JTA unit stays tested here
    // (aForcedReleaseEndsAPessimisticHoldersSessionAndTheOldHolderLearnsItLostIt).
    @Override
    public void anAbandonedLeaseKeepsTheKeyTakenForTheLockDelayPastItsEnd() {
    }

    @Override
    public void aForcedReleaseWithALockDelayKeepsTheKeyTakenForTheDelayOnTheDatabasesClock() {
    }
}
