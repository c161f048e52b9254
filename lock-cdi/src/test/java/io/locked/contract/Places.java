package io.locked.contract;

import io.locked.api.LockHandle;
import io.locked.api.LockInfo;
import io.locked.api.LockManager;
import io.locked.spi.LockRows;
import java.util.List;
import java.util.Optional;

/**
 * A holder's place (a key's exclusive lock, its writer, one reader slot, one permit) as one string, the
 * table's row key ({@link LockRows#of}), so that the contract can compare what a handle holds with what an
 * operator sees, and name one place to look at or end.
 */
public final class Places {
    private Places() {
    }

    /** @return the place the handle holds */
    public static String of(LockHandle handle) {
        return LockRows.of(handle.key(), handle.kind(), handle.slot());
    }

    /** @return the place the operator's view shows */
    public static String of(LockInfo info) {
        return LockRows.of(info.key(), info.kind(), info.slot());
    }

    /** @return the places of the views, in their order */
    public static List<String> of(List<LockInfo> infos) {
        return infos.stream().map(Places::of).toList();
    }

    /** @return the operator's view of one place, read through {@link LockManager#list}; empty where the table has no row */
    public static Optional<LockInfo> inspect(LockManager operator, String place) {
        return operator.list(place, null, 1000).stream().filter(info -> of(info).equals(place)).findFirst();
    }

    /** @return whether the place is held, as the operator sees it */
    public static boolean held(LockManager operator, String place) {
        return inspect(operator, place).map(LockInfo::held).orElse(false);
    }

    /** Ends the hold of one place as the operator's {@link LockManager#forceRelease(LockInfo)} does. */
    public static Optional<LockInfo> forceRelease(LockManager operator, String place) {
        return inspect(operator, place).flatMap(operator::forceRelease);
    }
}
