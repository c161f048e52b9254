package io.locked.quarkus.app;

import io.locked.api.Locked;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Duration;

/**
 * Reactive endpoints as users write them: each returns a {@code Uni}, which Quarkus runs on the event
 * loop, and {@code @Locked} locks it without blocking the loop. The database writes that record each
 * call go to a worker thread, as Hibernate ORM needs.
 */
@Path("/reactive")
public class ReactiveOrders {
    @Inject
    JobRuns runs;

    /** Records its start and end, 200 ms apart, under the order's lock. */
    @GET
    @Path("ship/{order}")
    @Locked(value = "ship:{order}", maxWait = "60s")
    public Uni<String> ship(@PathParam("order") String order) {
        return record("ship-enter")
                .onItem().delayIt().by(Duration.ofMillis(200))
                .chain(() -> record("ship-exit"))
                .replaceWith("shipped " + order);
    }

    /** Holds the order's lock until its caller goes away: a request whose client hangs up. */
    @GET
    @Path("hang/{order}")
    @Locked(value = "ship:{order}", maxWait = "60s")
    public Uni<String> hang(@PathParam("order") String order) {
        return record("hang-enter").chain(() -> Uni.createFrom().nothing());
    }

    /** Not locked: answers on the event loop at once, if the loop is free to answer. */
    @GET
    @Path("ping")
    public Uni<String> ping() {
        return Uni.createFrom().item("pong");
    }

    private Uni<Void> record(String what) {
        return Uni.createFrom().<Void>item(() -> {
            runs.record(what);
            return null;
        }).runSubscriptionOn(Infrastructure.getDefaultWorkerPool());
    }
}
