package io.locked.internal.cdi;

import io.locked.api.LockMode;
import io.locked.internal.definition.LockedSettings;
import io.locked.spi.LockRepository;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The modes a lock store cannot make safe, with the {@code @Locked} methods that use them. */
final class StoreRefusals {
    private StoreRefusals() {
    }

    /** @return one message per refused mode, naming its methods and the store's reason; empty if none */
    static List<String> of(LockRepository store, List<LockedSettings> methods) {
        Map<LockMode, List<String>> methodsByMode = new EnumMap<>(LockMode.class);
        for (LockedSettings method : methods) {
            methodsByMode.computeIfAbsent(method.mode(), mode -> new ArrayList<>()).add(method.method());
        }
        List<String> refusals = new ArrayList<>();
        methodsByMode.forEach((mode, names) -> store.refusal(mode).ifPresent(reason ->
                refusals.add("@Locked " + mode + " on " + String.join(", ", names) + ": " + reason)));
        return refusals;
    }
}
