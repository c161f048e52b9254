package io.locked.quarkus.app;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Transactional;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Writes each run of a scheduled job to the database, stamped with the database's clock. */
@ApplicationScoped
public class JobRuns {
    @Inject
    EntityManager entities;

    @ConfigProperty(name = "locked-app.instance", defaultValue = "?")
    String instance;

    @ConfigProperty(name = "locked-app.tick.run", defaultValue = "none")
    String run;

    @Transactional
    public void record(String job) {
        entities.createNativeQuery("INSERT INTO job_run (job, instance, ran_at) VALUES (?1, ?2, UTC_TIMESTAMP(6))")
                .setParameter(1, run + "/" + job)
                .setParameter(2, instance)
                .executeUpdate();
    }
}
