package io.locked.internal.base;

import java.net.InetAddress;
import java.time.Clock;

/** Describes who holds a lock, for people reading the lock table: host, pid, thread, client time. */
public final class Holder {
    private static final String HOST_AND_PID = hostName() + "/" + ProcessHandle.current().pid();

    private Holder() {
    }

    public static String describe(Clock clientClock) {
        String text = HOST_AND_PID + "/" + Thread.currentThread().getName() + " at " + clientClock.instant();
        return text.length() <= 255 ? text : text.substring(0, 255);
    }

    /** Whether a holder text was written by this JVM: its host and process id come first. */
    public static boolean isThisJvm(String holder) {
        return holder != null && holder.startsWith(HOST_AND_PID + "/");
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
