package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, of docs/ and of it-tests/reports/ (where there is one) leads
 * somewhere: to a file that exists and, where it names an anchor, to a heading of the target page,
 * as GitHub derives anchors from headings. Pages move and headings change while the links to them
 * stay behind; a reader only finds out by clicking. Links to other sites are not followed (their
 * answer is no property of this build), and links inside code (blocks and spans) are no links.
 */
class DocLinksTest {
    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern FENCE = Pattern.compile("^\\s*(`{3,}|~{3,})");
    private static final Pattern CODE_SPAN = Pattern.compile("(`+)([\\s\\S]*?[^`])\\1(?!`)");
    // [text](target "title") and ![alt](target); the text may span lines
    private static final Pattern INLINE_LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    // [label]: target, the definition of a reference-style link
    private static final Pattern LINK_DEFINITION = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:\\s*<?([^\\s>]+)>?.*$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:\\s+(.*?))??(?:\\s+#+)?\\s*$");
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

    @Test
    void everyRelativeLinkLeadsToAFileAndAHeading() throws IOException {
        Map<Path, Set<String>> anchorsByPage = new HashMap<>();
        List<String> dead = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            String prose = prose(Files.readString(page, StandardCharsets.UTF_8));
            for (Pattern pattern : List.of(INLINE_LINK, LINK_DEFINITION)) {
                Matcher link = pattern.matcher(prose);
                while (link.find()) {
                    if (SCHEME.matcher(link.group(1)).find()) {
                        continue;
                    }
                    checked++;
                    String why = whyDead(page, link.group(1), anchorsByPage);
                    if (why != null) {
                        dead.add(ROOT.relativize(page) + ":" + lineOf(prose, link.start()) + ": (" + link.group(1) + "): " + why);
                    }
                }
            }
        }
        assertTrue(checked >= 50, "found only " + checked + " relative links: are the patterns still right?");
        assertTrue(dead.isEmpty(), () -> dead.size() + " dead links, each as page:line: (link): why\n" + String.join("\n", dead));
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        for (String folder : List.of("docs", "it-tests/reports")) {
            if (Files.isDirectory(ROOT.resolve(folder))) {
                try (Stream<Path> files = Files.list(ROOT.resolve(folder))) {
                    files.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
                }
            }
        }
        return pages;
    }

    // null where the link leads somewhere; else what is missing
    private static String whyDead(Path page, String target, Map<Path, Set<String>> anchorsByPage) {
        int hash = target.indexOf('#');
        String file = decoded(hash < 0 ? target : target.substring(0, hash));
        // GitHub reads a path that starts with / from the repository's root
        Path linked = file.isEmpty() ? page
                : (file.startsWith("/") ? ROOT.resolve(file.substring(1)) : page.getParent().resolve(file)).normalize();
        if (!Files.exists(linked)) {
            return "no file " + ROOT.relativize(linked);
        }
        if (hash < 0 || !linked.toString().endsWith(".md")) {
            return null;
        }
        String anchor = decoded(target.substring(hash + 1));
        return anchorsByPage.computeIfAbsent(linked, DocLinksTest::anchorsOf).contains(anchor) ? null
                : "no heading of " + ROOT.relativize(linked) + " has the anchor #" + anchor;
    }

    // percent escapes only: a + in a link is a plus, not a space as in a form
    private static String decoded(String part) {
        return URLDecoder.decode(part.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    @Test
    void anchorsAreGitHubs() {
        String page = String.join("\n",
                "# Using Locked in detail",
                "## `@Locked`",
                "## Read/write locks",
                "## Leadership (cluster singletons)",
                "### H2: heap",
                "## Benchmark, 2026-11-23T10:18:45.830731908Z",
                "## Start — stop",
                "## See [the README](../README.md)",
                "## snake_case stays",
                "## Notes",
                "## Notes",
                "```bash",
                "# not a heading, a comment in a code block",
                "```",
                "## Notes ##");
        assertEquals(List.of("using-locked-in-detail", "locked", "readwrite-locks", "leadership-cluster-singletons", "h2-heap",
                "benchmark-2026-11-23t101845830731908z", "start--stop", "see-the-readme", "snake_case-stays", "notes", "notes-1",
                "notes-2"), List.copyOf(anchors(page)), "anchors as GitHub makes them from those headings");
    }

    private static Set<String> anchorsOf(Path page) {
        try {
            return anchors(Files.readString(page, StandardCharsets.UTF_8));
        } catch (IOException unreadable) {
            throw new IllegalStateException("cannot read " + page, unreadable);
        }
    }

    // GitHub's rules: the heading's text as rendered (code spans and links give their text), lower case,
    // every character dropped but letters, digits, marks, underscores, hyphens and spaces, each space
    // a hyphen; a repeated anchor gets -1, -2, ... in order
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> repeats = new HashMap<>();
        for (String line : withoutCodeBlocks(markdown).split("\n", -1)) {
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String text = heading.group(2) == null ? "" : heading.group(2);
            text = CODE_SPAN.matcher(text).replaceAll(code -> Matcher.quoteReplacement(code.group(2).strip()));
            text = text.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
            String base = text.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{N}_\\- ]", "")
                    .replace(' ', '-');
            String anchor = base;
            if (repeats.containsKey(base)) {
                int count = repeats.get(base);
                do {
                    anchor = base + "-" + ++count;
                } while (repeats.containsKey(anchor));
                repeats.put(base, count);
            }
            repeats.put(anchor, 0);
            anchors.add(anchor);
        }
        return anchors;
    }

    // the page with its code blocks and code spans blanked out, line breaks kept so that lines still count
    private static String prose(String markdown) {
        return CODE_SPAN.matcher(withoutCodeBlocks(markdown))
                .replaceAll(code -> Matcher.quoteReplacement(code.group().replaceAll("[^\n]", " ")));
    }

    private static String withoutCodeBlocks(String markdown) {
        StringBuilder prose = new StringBuilder();
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            Matcher opening = FENCE.matcher(line);
            if (fence == null && opening.find()) {
                fence = opening.group(1);
                line = "";
            } else if (fence != null) {
                char mark = fence.charAt(0);
                if (line.strip().startsWith(fence) && line.strip().chars().allMatch(c -> c == mark)) {
                    fence = null;
                }
                line = "";
            }
            prose.append(line).append('\n');
        }
        return prose.toString();
    }

    private static int lineOf(String text, int offset) {
        return (int) text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
    }
}
