package io.locked.quarkus.invalid;

import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** Misuse: the key template names a parameter that does not exist. */
@ApplicationScoped
public class UnknownParameterJob {

    @Locked("job:{jobid}")
    public void run(String jobId) {
    }
}
