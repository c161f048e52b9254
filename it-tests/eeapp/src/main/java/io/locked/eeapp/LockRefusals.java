package io.locked.eeapp;

import io.locked.api.LockNotAcquiredException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/**
 * A call the lock kept out answers 409 Conflict, as a REST application would say "busy, try again",
 * so that the tests tell a refusal from a failure; no database connection to ask with is the server's
 * trouble, 503.
 */
@Provider
public class LockRefusals implements ExceptionMapper<LockNotAcquiredException> {
    @Override
    public Response toResponse(LockNotAcquiredException refused) {
        Response.Status status = refused.reason() == LockNotAcquiredException.Reason.HELD
                ? Response.Status.CONFLICT : Response.Status.SERVICE_UNAVAILABLE;
        return Response.status(status).type(MediaType.TEXT_PLAIN).entity(refused.getMessage()).build();
    }
}
