package io.locked.quarkus.app;

import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** What the multi-instance test drives over HTTP. */
@Path("/counter")
@Produces(MediaType.TEXT_PLAIN)
public class CounterResource {
    @Inject
    Counter counter;
    @Inject
    History history;

    @POST
    @Path("{name}/{mode}")
    public long increment(@PathParam("name") String name, @PathParam("mode") String mode) {
        return switch (mode) {
            case "pessimistic" -> counter.incrementPessimistic(name);
            case "optimistic" -> counter.incrementOptimistic(name);
            default -> throw new NotFoundException("no mode " + mode);
        };
    }

    @GET
    @Path("{name}")
    public long value(@PathParam("name") String name) {
        return counter.value(name);
    }

    @GET
    @Path("history")
    public String history() {
        return String.join("\n", history.sections());
    }
}
