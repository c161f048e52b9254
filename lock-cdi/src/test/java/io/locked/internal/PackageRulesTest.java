package io.locked.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.testing.PackageRules;
import io.locked.testing.PackageRules.Use;
import io.locked.testing.PackageRulesChecks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The layout of lock-cdi's main sources (docs/design.md shows it): the CDI layer on top, then the API,
 * the lock manager that chooses the primitive, the primitives and the operators' calls, the exclusive
 * acquisition of one row they all take their rows through, leases and their renewals, and at the bottom
 * what every part uses. A package may use its own layer and the layers below it, never one above, and
 * no other package of its own layer (so no two packages use each other); every layer may name the API
 * and the SPI, which the core implements and calls; no file grows past 300 lines.
 */
class PackageRulesTest implements PackageRulesChecks {
    private static final String ROOT = "io.locked";
    private static final String CORE = ROOT + ".internal";
    /** Each package's layer: a package may use its own layer and higher numbers only. */
    private static final Map<String, Integer> LAYERS = Map.ofEntries(
            Map.entry(CORE + ".cdi", 0),
            Map.entry(CORE + ".cdi.health", 0),
            Map.entry(ROOT + ".api", 1),
            Map.entry(ROOT + ".api.event", 1),
            Map.entry(CORE, 2),
            Map.entry(CORE + ".async", 3),
            Map.entry(CORE + ".leadership", 3),
            Map.entry(CORE + ".permit", 3),
            Map.entry(CORE + ".readwrite", 3),
            Map.entry(CORE + ".operations", 3),
            Map.entry(CORE + ".metrics", 3),
            Map.entry(CORE + ".telemetry", 3),
            Map.entry(CORE + ".exclusive", 4),
            Map.entry(CORE + ".definition", 4),
            Map.entry(CORE + ".lease", 5),
            Map.entry(CORE + ".key", 5),
            Map.entry(CORE + ".base", 6),
            Map.entry(ROOT + ".spi", 7));
    /** The published packages: the core implements the API and calls the SPI from every layer. */
    private static final Set<String> PUBLISHED = Set.of(ROOT + ".api", ROOT + ".api.event", ROOT + ".spi");
    private static final PackageRules RULES = new PackageRules(Path.of("src/main/java"), ROOT, LAYERS,
            name -> PUBLISHED.contains(name.substring(0, name.lastIndexOf('.'))), 300);

    @Override
    public PackageRules rules() {
        return RULES;
    }

    /**
     * The rules catch what they are for: the lease watchdog knowing the acquisition it renews (the cycle
     * the layout broke), a primitive using another, and the bottom layer using one above it.
     */
    @Test
    void theRulesReportACycleBetweenLayersAndPrimitivesThatKnowEachOther() {
        List<Use> madeUp = List.of(
                new Use("X", CORE + ".lease", CORE + ".exclusive", CORE + ".exclusive.OptimisticAcquisition"),
                new Use("Y", CORE + ".permit", CORE + ".readwrite", CORE + ".readwrite.ReadWriteSlots"),
                new Use("Z", CORE + ".base", CORE, CORE + ".DefaultLockManager"),
                new Use("W", CORE + ".readwrite", ROOT + ".spi", ROOT + ".spi.LockRows"));
        List<String> found = RULES.violations(madeUp);
        assertEquals(3, found.size(), "expected the first three made-up uses: " + found);
        assertTrue(found.get(0).startsWith("X ") && found.get(1).startsWith("Y ") && found.get(2).startsWith("Z "),
                found.toString());
    }
}
