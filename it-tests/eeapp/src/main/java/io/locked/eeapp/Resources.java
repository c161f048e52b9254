package io.locked.eeapp;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.LockRequest;
import io.locked.api.event.LockNotAcquired;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.concurrent.CompletableFuture;

/** What the tests drive over HTTP. */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public class Resources {
    @Inject
    Counter counter;
    @Inject
    Orders orders;
    @Inject
    Reports reports;
    @Inject
    LockManager locks;
    @Inject
    LockEventLog events;
    @Inject
    Catalog catalog;
    @Inject
    HeldCalls held;

    @POST
    @Path("counter/{name}/{mode}")
    public long increment(@PathParam("name") String name, @PathParam("mode") String mode) {
        return switch (mode) {
            case "pessimistic" -> counter.incrementPessimistic(name);
            case "optimistic" -> counter.incrementOptimistic(name);
            default -> throw new NotFoundException("no mode " + mode);
        };
    }

    @GET
    @Path("counter/{name}")
    public long value(@PathParam("name") String name) {
        return counter.value(name);
    }

    @GET
    @Path("history")
    public String history() {
        return String.join("\n", counter.sections());
    }

    /** A caller's container transaction around a locked call: what it saw, or what it saw before rolling back. */
    @POST
    @Path("orders/{id}")
    public String place(@PathParam("id") String id, @QueryParam("counter") String counterName,
                        @QueryParam("rollBack") boolean rollBack) throws Exception {
        try {
            return orders.place(id, counterName, rollBack) + " kept=" + orders.exists(id);
        } catch (Orders.CallerRolledBack rolledBack) {
            return rolledBack.getMessage() + " kept=" + orders.exists(id);
        }
    }

    /** Reports#daily called while another thread holds its key: its configured wait and on-timeout show in the event. */
    @POST
    @Path("reports/daily-while-held")
    public String dailyWhileHeld() throws Exception {
        LockHandle held = CompletableFuture.supplyAsync(() -> locks.acquire(LockRequest.of("report:daily"))).get();
        try {
            reports.daily();
        } finally {
            CompletableFuture.runAsync(held::close).get();
        }
        LockNotAcquired refused = events.of(LockNotAcquired.class).stream().filter(e -> e.key().equals("report:daily"))
                .reduce((first, second) -> second).orElseThrow();
        return "runs=" + reports.runs() + " wait=" + refused.maxWait() + " outcome=" + refused.outcome();
    }

    /** An export under two permits, held until {@code held/{batch}/{call}} lets it go: the slot it held. */
    @POST
    @Path("catalog/{batch}/export/{mode}/{call}")
    public String export(@PathParam("batch") String batch, @PathParam("mode") String mode,
                         @PathParam("call") String call) throws Exception {
        return switch (mode) {
            case "pessimistic" -> catalog.exportPessimistic(batch, call);
            case "optimistic" -> catalog.exportOptimistic(batch, call);
            default -> throw new NotFoundException("no mode " + mode);
        };
    }

    /** A reader of the catalog, held until {@code held/{batch}/{call}} lets it go. */
    @POST
    @Path("catalog/{batch}/browse/{mode}/{call}")
    public String browse(@PathParam("batch") String batch, @PathParam("mode") String mode,
                         @PathParam("call") String call) throws Exception {
        return switch (mode) {
            case "pessimistic" -> catalog.browsePessimistic(batch, call);
            case "optimistic" -> catalog.browseOptimistic(batch, call);
            default -> throw new NotFoundException("no mode " + mode);
        };
    }

    /** The writer of the catalog; it returns at once. */
    @POST
    @Path("catalog/{batch}/replace/{mode}")
    public String replace(@PathParam("batch") String batch, @PathParam("mode") String mode) {
        return switch (mode) {
            case "pessimistic" -> catalog.replacePessimistic(batch);
            case "optimistic" -> catalog.replaceOptimistic(batch);
            default -> throw new NotFoundException("no mode " + mode);
        };
    }

    /** The batch's calls inside on this server, one line each: call, instance, key held. */
    @GET
    @Path("held/{batch}")
    public String inside(@PathParam("batch") String batch) {
        return String.join("\n", held.inside(batch));
    }

    @POST
    @Path("held/{batch}/{call}")
    public void let(@PathParam("batch") String batch, @PathParam("call") String call) {
        held.let(batch, call);
    }
}
