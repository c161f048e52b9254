package io.locked.jpa;

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
 * The layout of lock-jpa's main sources, read from their text (docs/design.md shows it): the public
 * API on top, then the two paths, then the services they use, then dialects, transactions and
 * connections. A class may use its own layer and the layers below it, never one above; internal
 * packages use nothing public but the value types a user names (the entity, the database and path
 * enums); no dialect knows a path; no file grows past 300 lines. The rules are
 * {@link PackageRules}, shared with lock-cdi.
 */
class PackageRulesTest implements PackageRulesChecks {
    private static final Path SOURCES = Path.of("src/main/java");
    private static final String ROOT = "io.locked.jpa";
    /** Each package's layer: a package may use its own layer and higher numbers only. */
    private static final Map<String, Integer> LAYERS = Map.ofEntries(
            Map.entry(ROOT + ".cdi", 0),
            Map.entry(ROOT + ".web", 0),
            Map.entry(ROOT, 1),
            Map.entry(ROOT + ".internal", 2),
            Map.entry(ROOT + ".internal.entitypath", 3),
            Map.entry(ROOT + ".internal.nativepath", 3),
            Map.entry(ROOT + ".internal.inspection", 4),
            Map.entry(ROOT + ".internal.cleanup", 4),
            Map.entry(ROOT + ".internal.schema", 4),
            // a forced release (inspection) raises the key's fence
            Map.entry(ROOT + ".internal.fence", 5),
            Map.entry(ROOT + ".internal.dialect", 6),
            Map.entry(ROOT + ".internal.transaction", 7),
            Map.entry(ROOT + ".internal.connection", 8),
            Map.entry(ROOT + ".mapping", 9));
    /** The public types every layer may name: what users name too. */
    private static final Set<String> VALUES = Set.of(ROOT + ".LockRow", ROOT + ".LockDatabase", ROOT + ".LockStatements",
            ROOT + ".LockTokens", ROOT + ".StandbyCommits");
    private static final PackageRules RULES = new PackageRules(SOURCES, ROOT, LAYERS, VALUES::contains, 300);

    @Override
    public PackageRules rules() {
        return RULES;
    }

    /** The rules catch what they are for: each kind of violation, made up, is reported. */
    @Test
    void theRulesReportADialectThatKnowsAPathAndAnInternalClassThatUsesTheRepository() {
        List<Use> madeUp = List.of(
                new Use("X", ROOT + ".internal.dialect", ROOT + ".internal.nativepath", ROOT + ".internal.nativepath.NativeLockRepository"),
                new Use("Y", ROOT + ".internal.transaction", ROOT, ROOT + ".JpaLockRepository"),
                new Use("Z", ROOT + ".internal.connection", ROOT, ROOT + ".LockRow"));
        List<String> found = RULES.violations(madeUp);
        assertEquals(2, found.size(), "expected the first two made-up uses: " + found);
        assertTrue(found.get(0).startsWith("X ") && found.get(1).startsWith("Y "), found.toString());
    }
}
