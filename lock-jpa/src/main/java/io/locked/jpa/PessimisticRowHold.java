package io.locked.jpa;

import io.locked.spi.PessimisticHold;
import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;

/** The lock's own transaction, open from acquisition to release, holding the key's row lock. */
final class PessimisticRowHold implements PessimisticHold {
    private static final Logger LOG = Logger.getLogger(PessimisticRowHold.class.getName());
    private final LockTransaction transaction;
    private final long token;

    PessimisticRowHold(LockTransaction transaction, long token) {
        this.transaction = transaction;
        this.token = token;
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public boolean release() {
        try {
            transaction.commit();
            return true;
        } catch (SQLException lost) {
            LOG.log(Level.WARNING, "Commit of a pessimistic lock failed; the database had ended its transaction", lost);
            return false;
        } finally {
            transaction.close();
        }
    }
}
