package io.locked.payara;

import java.util.Arrays;
import java.util.List;

/**
 * The records in which EclipseLink warned, stack and all, of a try on a busy key: a {@code NOWAIT} lock on the lock
 * table that the database refused. Locked's tries skip a locked row instead (docs/operations.md#logging), so there
 * are none; a wait that ran out is still logged, and is not counted here.
 */
final class RefusedLockWarnings {
    private RefusedLockWarnings() {
    }

    /** @return the records of the log in which EclipseLink reports a refused try on the lock table */
    static List<String> ofTries(String log) {
        return Arrays.stream(log.split(ThreadLocalLeaks.RECORD_START))
                .filter(record -> record.contains("EclipseLink-4002") && record.contains("locked_lock")
                        && record.contains("NOWAIT"))
                .toList();
    }
}
