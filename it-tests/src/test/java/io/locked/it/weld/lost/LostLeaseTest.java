package io.locked.it.weld.lost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.api.LockLostException;
import io.locked.api.event.LockAcquired;
import io.locked.api.event.LockLost;
import io.locked.api.event.LockReleased;
import io.locked.it.weld.EventLog;
import io.locked.it.weld.LockedDeployment;
import java.util.List;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.Test;

/** A lease lost while the method ran: the call ends with LockLostException and a LockLost event, no LockReleased. */
class LostLeaseTest {

    @Test
    void callEndsWithLockLost() {
        try (WeldContainer container = LockedDeployment.with(LongJob.class, CutOffStore.class).initialize()) {
            LongJob job = container.select(LongJob.class).get();
            LockLostException lost = assertThrows(LockLostException.class, job::run);
            assertEquals("job:long", lost.key());

            EventLog log = container.select(EventLog.class).get();
            List<LockLost> lostEvents = log.of(LockLost.class);
            assertEquals(1, lostEvents.size());
            long token = log.of(LockAcquired.class).get(0).token();
            assertEquals(token, lostEvents.get(0).token());
            assertTrue(log.of(LockReleased.class).stream().noneMatch(released -> released.token() == token),
                    "a lost lock must not be reported as released");
        }
    }
}
