package io.locked.eeapp.jobs;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;

/**
 * Writes each run of a scheduled job to the table {@code job_run} (the scheduler test creates it),
 * stamped with the database's clock, and with the token of the lock the run is inside of, or -1
 * where it is inside none.
 */
@ApplicationScoped
public class JobRuns {
    static final String INSTANCE = System.getProperty("locked-app.instance", "server");
    @Inject
    EntityManager entities;
    @Inject
    LockManager locks;
    @Inject
    TickSwitch ticks;

    /** In a transaction of its own: an EJB timer's callback runs in a container transaction by default. */
    @Transactional(Transactional.TxType.REQUIRES_NEW)
    public void record(String job) {
        entities.createNativeQuery("INSERT INTO job_run (job, instance, token, ran_at) VALUES (?1, ?2, ?3, UTC_TIMESTAMP(6))")
                .setParameter(1, ticks.run() + "/" + job)
                .setParameter(2, INSTANCE)
                .setParameter(3, locks.current().map(LockHandle::token).orElse(-1L))
                .executeUpdate();
    }
}
