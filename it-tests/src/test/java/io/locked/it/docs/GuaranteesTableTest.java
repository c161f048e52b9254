package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/guarantees.md is never broader than its tests: every test its table names in the last column,
 * as {@code `ClassName`} or {@code `ClassName.methodName`}, is a test class of the repository's test
 * sources (one that declares test methods, or extends or implements one that does), and the method,
 * when named, a test method of that class or of one it extends or implements. So is any test class
 * the page's text names elsewhere ({@code `...Test`}, {@code `...IT`}, {@code `...Contract`},
 * {@code `...Suite`}). A renamed or deleted test fails here until the page follows.
 */
class GuaranteesTableTest {
    private static final Pattern HEADER = Pattern.compile("\\| *Promise *\\|.*\\| *Tested by *\\|");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    private static final Pattern TEST_NAME = Pattern.compile("([A-Z]\\w*)(?:\\.(\\w+))?");
    private static final Pattern NAMED_TEST_CLASS = Pattern.compile("[A-Z]\\w*(?:Test|Tests|IT|Contract|Suite)(?:\\.\\w+)?");
    private static final Pattern TEST_ANNOTATION = Pattern.compile(
            "@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\\b");
    private static final Pattern METHOD = Pattern.compile("\\bvoid\\s+(\\w+)\\s*\\(");

    @Test
    void everyTestTheGuaranteesNameExists() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        String page = Files.readString(root.resolve("docs/guarantees.md"), StandardCharsets.UTF_8);
        TestSources sources = TestSources.under(root);

        List<String> rows = tableRows(page);
        assertTrue(rows.size() >= 15, "found only " + rows.size() + " rows in the guarantees table: is its header"
                + " still | Promise | ... | Tested by |?");
        Set<String> named = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        for (String row : rows) {
            List<String> cells = cells(row);
            String promise = cells.get(0);
            Matcher code = CODE.matcher(cells.get(cells.size() - 1));
            int tests = 0;
            while (code.find()) {
                tests++;
                if (TEST_NAME.matcher(code.group(1)).matches()) {
                    named.add(code.group(1));
                } else {
                    problems.add("not a test name, in the row " + promise + ": `" + code.group(1) + "`");
                }
            }
            if (tests == 0) {
                problems.add("a promise without a test: " + promise);
            }
        }
        Matcher code = CODE.matcher(page);
        while (code.find()) {
            if (NAMED_TEST_CLASS.matcher(code.group(1)).matches()) {
                named.add(code.group(1));
            }
        }
        for (String name : named) {
            sources.problemWith(name).ifPresent(problems::add);
        }
        assertEquals(List.of(), problems, "docs/guarantees.md names tests that are not in the test sources");
    }

    /** The table's rows below its header and separator, up to the first line that is no row. */
    private static List<String> tableRows(String page) {
        List<String> rows = new ArrayList<>();
        String[] lines = page.split("\n");
        for (int i = 0; i < lines.length; i++) {
            if (HEADER.matcher(lines[i]).matches()) {
                for (int row = i + 2; row < lines.length && lines[row].startsWith("|"); row++) {
                    rows.add(lines[row]);
                }
                return rows;
            }
        }
        return rows;
    }

    private static List<String> cells(String row) {
        List<String> cells = new ArrayList<>();
        for (String cell : row.substring(1, row.lastIndexOf('|')).split("\\|")) {
            cells.add(cell.trim());
        }
        return cells;
    }

    /** The test sources of every module: each class (by simple name) with its test methods and supertypes. */
    private static final class TestSources {
        private final Map<String, Set<String>> testMethods = new HashMap<>();
        private final Map<String, Set<String>> supertypes = new HashMap<>();

        static TestSources under(Path root) throws IOException {
            TestSources sources = new TestSources();
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                    String name = dir.getFileName() == null ? "" : dir.getFileName().toString();
                    return name.equals("target") || name.startsWith(".") && !dir.equals(root)
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                    String path = file.toString().replace('\\', '/');
                    if (path.contains("/src/test/") && path.endsWith(".java")) {
                        sources.read(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
            assertTrue(sources.testMethods.size() > 100, "found only " + sources.testMethods.size()
                    + " classes under the src/test directories of " + root);
            return sources;
        }

        private void read(Path file) throws IOException {
            String name = file.getFileName().toString().replaceFirst("\\.java$", "");
            String text = Files.readString(file, StandardCharsets.UTF_8);
            Set<String> methods = testMethods.computeIfAbsent(name, n -> new HashSet<>());
            Matcher annotation = TEST_ANNOTATION.matcher(text);
            while (annotation.find()) {
                Matcher method = METHOD.matcher(text);
                if (method.find(annotation.end())) {
                    methods.add(method.group(1));
                }
            }
            // what the top-level type extends or implements: any type named there before its body
            Matcher declaration = Pattern.compile("\\b(?:class|interface)\\s+" + name + "\\b([^{]*)\\{").matcher(text);
            if (declaration.find()) {
                Matcher type = Pattern.compile("\\b([A-Z]\\w*)").matcher(declaration.group(1));
                while (type.find()) {
                    supertypes.computeIfAbsent(name, n -> new HashSet<>()).add(type.group(1));
                }
            }
        }

        /** @return what is wrong with a {@code Class} or {@code Class.method} the page names, if anything */
        Optional<String> problemWith(String name) {
            Matcher parts = TEST_NAME.matcher(name);
            if (!parts.matches()) {
                return Optional.of("not a test name: `" + name + "`");
            }
            String type = parts.group(1);
            String method = parts.group(2);
            if (!testMethods.containsKey(type)) {
                return Optional.of("no class " + type + " under any src/test directory: `" + name + "`");
            }
            Set<String> found = testMethodsOf(type, new HashSet<>());
            if (found.isEmpty()) {
                return Optional.of(type + " declares no test and extends no class that does: `" + name + "`");
            }
            if (method != null && !found.contains(method)) {
                return Optional.of("no test method " + method + " in " + type + " nor in what it extends: `"
                        + name + "`");
            }
            return Optional.empty();
        }

        private Set<String> testMethodsOf(String type, Set<String> seen) {
            Set<String> found = new HashSet<>();
            if (seen.add(type) && testMethods.containsKey(type)) {
                found.addAll(testMethods.get(type));
                for (String supertype : supertypes.getOrDefault(type, Set.of())) {
                    found.addAll(testMethodsOf(supertype, seen));
                }
            }
            return found;
        }
    }
}
