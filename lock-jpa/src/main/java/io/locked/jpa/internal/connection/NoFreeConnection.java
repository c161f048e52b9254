package io.locked.jpa.internal.connection;

import java.sql.SQLTransientConnectionException;

/** The pool had no connection to give within the call's wait: every one was in use. */
public final class NoFreeConnection extends SQLTransientConnectionException {
    private static final long serialVersionUID = 1L;

    NoFreeConnection(String pool) {
        super("No connection was free in " + pool);
    }
}
