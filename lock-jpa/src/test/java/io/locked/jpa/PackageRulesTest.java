package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layout of lock-jpa's main sources, read from their text (docs/design.md shows it): the public
 * API on top, then the two paths, then the services they use, then dialects, transactions and
 * connections. A class may use its own layer and the layers below it, never one above; internal
 * packages use nothing public but the value types a user names (the entity, the database and path
 * enums); no dialect knows a path; no file grows far past 300 lines.
 */
class PackageRulesTest {
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
            Map.entry(ROOT + ".internal.fence", 4),
            Map.entry(ROOT + ".internal.schema", 4),
            Map.entry(ROOT + ".internal.dialect", 5),
            Map.entry(ROOT + ".internal.transaction", 6),
            Map.entry(ROOT + ".internal.connection", 7),
            Map.entry(ROOT + ".mapping", 8));
    /** The public types every layer may name: what users name too. */
    private static final Set<String> VALUES = Set.of(ROOT + ".LockRow", ROOT + ".LockDatabase", ROOT + ".LockStatements",
            ROOT + ".LockTokens", ROOT + ".StandbyCommits");
    private static final int LONGEST_FILE = 320;
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    /** A use of one of lock-jpa's classes by its full name, in an import or in the code. */
    private static final Pattern USE = Pattern.compile("\\b(io\\.locked\\.jpa(?:\\.[a-z]\\w*)*)\\.([A-Z]\\w*)");

    /** One class's use of another, by package and full class name. */
    record Use(String fromClass, String fromPackage, String toPackage, String toClass) {
    }

    @Test
    void everyPackageUsesOnlyItsOwnLayerAndTheLayersBelowIt() {
        List<Use> uses = uses();
        assertTrue(uses.size() > 100, "the rules read almost nothing: " + uses.size() + " uses");
        assertEquals(List.of(), violations(uses));
    }

    @Test
    void noPackageIsLeftOutOfTheLayers() {
        Set<String> unplaced = new TreeSet<>();
        for (Path file : sources()) {
            String name = packageOf(read(file));
            if (!LAYERS.containsKey(name)) {
                unplaced.add(name);
            }
        }
        assertEquals(Set.of(), unplaced, "place each new package in a layer of this test and of docs/design.md");
    }

    @Test
    void noMainFileGrowsFarPastThreeHundredLines() {
        Map<String, Integer> tooLong = new TreeMap<>();
        for (Path file : sources()) {
            int lines = read(file).split("\n", -1).length;
            if (lines > LONGEST_FILE) {
                tooLong.put(SOURCES.relativize(file).toString(), lines);
            }
        }
        assertEquals(Map.of(), tooLong, "split these by responsibility");
    }

    /** The rules catch what they are for: each kind of violation, made up, is reported. */
    @Test
    void theRulesReportADialectThatKnowsAPathAndAnInternalClassThatUsesTheRepository() {
        List<Use> madeUp = List.of(
                new Use("X", ROOT + ".internal.dialect", ROOT + ".internal.nativepath", ROOT + ".internal.nativepath.NativeLockRepository"),
                new Use("Y", ROOT + ".internal.transaction", ROOT, ROOT + ".JpaLockRepository"),
                new Use("Z", ROOT + ".internal.connection", ROOT, ROOT + ".LockRow"));
        List<String> found = violations(madeUp);
        assertEquals(2, found.size(), "expected the first two made-up uses: " + found);
        assertTrue(found.get(0).startsWith("X ") && found.get(1).startsWith("Y "), found.toString());
    }

    private static List<String> violations(List<Use> uses) {
        List<String> found = new ArrayList<>();
        for (Use use : uses) {
            if (use.toPackage().equals(use.fromPackage()) || VALUES.contains(use.toClass())) {
                continue;
            }
            Integer from = LAYERS.get(use.fromPackage());
            Integer to = LAYERS.get(use.toPackage());
            if (from == null || to == null || to < from) {
                found.add(use.fromClass() + " (" + use.fromPackage() + ") uses " + use.toClass());
            }
        }
        return found;
    }

    private static List<Use> uses() {
        List<Use> uses = new ArrayList<>();
        for (Path file : sources()) {
            String text = read(file);
            String from = packageOf(text);
            String fromClass = from + "." + file.getFileName().toString().replace(".java", "");
            Matcher use = USE.matcher(withoutComments(text).replaceFirst("package [\\w.]+;", ""));
            while (use.find()) {
                uses.add(new Use(fromClass, from, use.group(1), use.group(1) + "." + use.group(2)));
            }
        }
        return uses;
    }

    private static String withoutComments(String text) {
        return text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
    }

    private static String packageOf(String text) {
        Matcher name = PACKAGE.matcher(text);
        return name.find() ? name.group(1) : "";
    }

    private static List<Path> sources() {
        try (Stream<Path> files = Files.walk(SOURCES.resolve(ROOT.replace('.', '/')))) {
            return files.filter(file -> file.toString().endsWith(".java"))
                    .filter(file -> !file.getFileName().toString().equals("package-info.java")).sorted().toList();
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException unreadable) {
            throw new UncheckedIOException(unreadable);
        }
    }
}
