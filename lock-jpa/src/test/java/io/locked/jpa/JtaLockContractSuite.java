package io.locked.jpa;

import io.locked.jpa.testing.JtaUnits;
import io.locked.jpa.testing.Store;
import java.util.function.UnaryOperator;

/**
 * The lock contract on a container-managed (JTA) unit, as Quarkus and the servers build theirs: the
 * unit's connections come from a pool that enlists them in the thread's transaction, and the lock's
 * own transactions run through the transaction manager.
 */
abstract class JtaLockContractSuite extends JpaLockContractSuite {
    @Override
    Store open(int poolSize, UnaryOperator<JpaLockRepository.Builder> more) {
        return JtaUnits.open(database(), poolSize, settings -> more.apply(settings.statements(statements())));
    }

    // Not tests on a JTA unit: Locked cannot read the size of the enlisting pool, so it keeps no
    // connection back from pessimistic holders there (docs/guarantees.md says to size that pool).
    @Override
    void renewalsAndTheHoldersOwnWorkGoOnWhilePessimisticWaitersPileUp() {
    }

    @Override
    void pessimisticHoldersOfEveryConnectionButOneLeaveItToALeasesRenewals() {
    }
}
