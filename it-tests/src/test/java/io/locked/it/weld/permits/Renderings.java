package io.locked.it.weld.permits;

import io.locked.api.LockHandle;
import io.locked.api.LockManager;
import io.locked.api.Locked;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** At most two renderings at once, across every JVM: the form the README shows. */
@ApplicationScoped
public class Renderings {
    @Inject
    LockManager locks;

    /**
     * @param inside counted down once the call holds its permit
     * @param finish what the call waits for before it returns
     * @return the permit the call held: its key and slot
     */
    @Locked(value = "render", permits = 2, maxWait = "0s")
    public String render(CountDownLatch inside, CountDownLatch finish) throws InterruptedException {
        LockHandle held = locks.current().orElseThrow();
        String slot = held.key() + "#" + held.slot();
        inside.countDown();
        if (!finish.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never let the rendering finish");
        }
        return slot;
    }
}
