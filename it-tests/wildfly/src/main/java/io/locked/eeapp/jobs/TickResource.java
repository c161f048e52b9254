package io.locked.eeapp.jobs;

import jakarta.inject.Inject;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** What the scheduler test drives: arming and disarming the jobs, and the instance's own clock. */
@Path("ticks")
@Produces(MediaType.TEXT_PLAIN)
public class TickResource {
    @Inject
    TickSwitch ticks;
    @Inject
    ExecutorTicks executorTicks;

    /** Runs the jobs from now on, their runs recorded under the given test run. */
    @POST
    @Path("{run}")
    public String arm(@PathParam("run") String run) {
        ticks.arm(run);
        executorTicks.start();
        return "armed";
    }

    @DELETE
    public String disarm() {
        executorTicks.stop();
        ticks.disarm();
        return "disarmed";
    }

    /** @return this instance's wall clock, in milliseconds since the epoch: a faked clock shows here */
    @GET
    @Path("clock")
    public long clock() {
        return System.currentTimeMillis();
    }
}
