package io.locked.eeapp.jobs;

import jakarta.enterprise.context.ApplicationScoped;

/**
 * Whether the scheduled jobs run, and for which test run. The timers fire every 2 s from the
 * deployment on; they do nothing until the scheduler test arms them ({@code POST ticks/{run}}), so
 * that the other tests on the same servers see no job at work.
 */
@ApplicationScoped
public class TickSwitch {
    private volatile String run;

    void arm(String run) {
        this.run = run;
    }

    void disarm() {
        run = null;
    }

    public boolean armed() {
        return run != null;
    }

    String run() {
        return run;
    }
}
