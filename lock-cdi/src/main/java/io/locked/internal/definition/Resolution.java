package io.locked.internal.definition;

import java.util.List;

/**
 * The outcome of resolving one method: settings, or the errors that fail the deployment.
 *
 * @param settings the settings, null when there are errors
 * @param errors   the definition errors, empty when resolved
 */
public record Resolution(LockedSettings settings, List<String> errors) {

    static Resolution of(LockedSettings settings) {
        return new Resolution(settings, List.of());
    }

    static Resolution failed(List<String> errors) {
        return new Resolution(null, List.copyOf(errors));
    }

    /** @return whether the method resolved without errors */
    public boolean isValid() {
        return errors.isEmpty();
    }
}
