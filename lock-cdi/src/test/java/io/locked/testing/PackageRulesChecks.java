package io.locked.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checks of a module's {@link PackageRules}: a module's test implements this with its layers. */
public interface PackageRulesChecks {

    /** @return the module's rules */
    PackageRules rules();

    @Test
    default void everyPackageUsesOnlyItsOwnLayerAndTheLayersBelowIt() {
        List<PackageRules.Use> uses = rules().uses();
        assertTrue(uses.size() > 100, "the rules read almost nothing: " + uses.size() + " uses");
        assertEquals(List.of(), rules().violations(uses));
    }

    @Test
    default void noPackageIsLeftOutOfTheLayers() {
        assertEquals(Set.of(), rules().unplacedPackages(), "place each new package in a layer of this test and of docs/design.md");
    }

    @Test
    default void noMainFileGrowsPastThreeHundredLines() {
        assertEquals(Map.of(), rules().tooLongFiles(), "split these by responsibility");
    }
}
