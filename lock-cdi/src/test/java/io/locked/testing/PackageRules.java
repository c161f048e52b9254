package io.locked.testing;

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
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A module's layout rules, read from the text of its main sources: each package sits in a layer and may
 * use its own package, the layers below it (higher numbers) and what every layer may name; two packages
 * of one layer may use each other only where one holds the other (a package and its subpackage); no
 * file grows past a bound. lock-cdi's and lock-jpa's {@code PackageRulesTest} state their layers with it.
 */
public final class PackageRules {
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);
    private final Path sources;
    private final String root;
    private final Map<String, Integer> layers;
    private final Predicate<String> namedEverywhere;
    private final int longestFile;
    /** A use of one of the module's classes by its full name, in an import or in the code. */
    private final Pattern use;

    /** One class's use of another, by package and full class name. */
    public record Use(String fromClass, String fromPackage, String toPackage, String toClass) {
    }

    /**
     * @param sources         the main source folder
     * @param root            the module's root package: uses of classes under it are checked
     * @param layers          each package's layer: a package may use its own layer and higher numbers
     * @param namedEverywhere the classes (full names) every layer may use
     * @param longestFile     the most lines a file may have
     */
    public PackageRules(Path sources, String root, Map<String, Integer> layers, Predicate<String> namedEverywhere,
                        int longestFile) {
        this.sources = sources;
        this.root = root;
        this.layers = layers;
        this.namedEverywhere = namedEverywhere;
        this.longestFile = longestFile;
        this.use = Pattern.compile("\\b(" + Pattern.quote(root) + "(?:\\.[a-z]\\w*)*)\\.([A-Z]\\w*)");
    }

    /** @return every use of a class of the module by a class of another of its packages */
    public List<Use> uses() {
        List<Use> uses = new ArrayList<>();
        for (Path file : files()) {
            String text = read(file);
            String from = packageOf(text);
            String fromClass = from + "." + file.getFileName().toString().replace(".java", "");
            Matcher found = use.matcher(withoutComments(text).replaceFirst("package [\\w.]+;", ""));
            while (found.find()) {
                uses.add(new Use(fromClass, from, found.group(1), found.group(1) + "." + found.group(2)));
            }
        }
        return uses;
    }

    /** @return the uses that break the rules, one line each */
    public List<String> violations(List<Use> uses) {
        List<String> found = new ArrayList<>();
        for (Use use : uses) {
            if (use.toPackage().equals(use.fromPackage()) || namedEverywhere.test(use.toClass())) {
                continue;
            }
            Integer from = layers.get(use.fromPackage());
            Integer to = layers.get(use.toPackage());
            boolean sameFamily = use.toPackage().startsWith(use.fromPackage() + ".")
                    || use.fromPackage().startsWith(use.toPackage() + ".");
            if (from == null || to == null || to < from || to.equals(from) && !sameFamily) {
                found.add(use.fromClass() + " (" + use.fromPackage() + ") uses " + use.toClass());
            }
        }
        return found;
    }

    /** @return the packages no layer names */
    public Set<String> unplacedPackages() {
        Set<String> unplaced = new TreeSet<>();
        for (Path file : files()) {
            String name = packageOf(read(file));
            if (!layers.containsKey(name)) {
                unplaced.add(name);
            }
        }
        return unplaced;
    }

    /** @return the files past the bound, with their lines */
    public Map<String, Integer> tooLongFiles() {
        Map<String, Integer> tooLong = new TreeMap<>();
        for (Path file : files()) {
            int lines = read(file).split("\n", -1).length;
            if (lines > longestFile) {
                tooLong.put(sources.relativize(file).toString(), lines);
            }
        }
        return tooLong;
    }

    private static String withoutComments(String text) {
        return text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "");
    }

    private static String packageOf(String text) {
        Matcher name = PACKAGE.matcher(text);
        return name.find() ? name.group(1) : "";
    }

    private List<Path> files() {
        try (Stream<Path> files = Files.walk(sources.resolve(root.replace('.', '/')))) {
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
