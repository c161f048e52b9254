package io.locked.internal.cdi;

import io.locked.api.LockMode;
import io.locked.api.LockType;
import io.locked.internal.definition.LockedSettings;
import io.locked.spi.LockRepository;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The locks a lock store cannot make safe, by mode and type, with the {@code @Locked} methods that use them. */
final class StoreRefusals {
    private StoreRefusals() {
    }

    private record Kind(LockMode mode, LockType type) {
        @Override
        public String toString() {
            return mode + (type == LockType.EXCLUSIVE ? "" : " " + type);
        }
    }

    /** @return one message per refused mode and type, naming its methods and the store's reason; empty if none */
    static List<String> of(LockRepository store, List<LockedSettings> methods) {
        Map<Kind, List<String>> methodsByKind = new LinkedHashMap<>();
        for (LockedSettings method : methods) {
            methodsByKind.computeIfAbsent(new Kind(method.mode(), method.type()), kind -> new ArrayList<>()).add(method.method());
        }
        List<String> refusals = new ArrayList<>();
        methodsByKind.forEach((kind, names) -> store.refusal(kind.mode(), kind.type()).ifPresent(reason ->
                refusals.add("@Locked " + kind + " on " + String.join(", ", names) + ": " + reason)));
        return refusals;
    }
}
