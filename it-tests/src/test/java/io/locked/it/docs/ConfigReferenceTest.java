package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.internal.definition.LockedKeys;
import io.locked.internal.definition.LockedKeys.Member;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is the reference of the keys Locked reads, and {@link LockedKeys} is the
 * code's list of them: a key added to the code and not to the page, or a key the page names that
 * the code no longer reads (renamed, removed, misspelt), fails here rather than in a user's log.
 * The page's key tables are those whose first column is headed {@code member} or {@code key}; a
 * row's key is its first cell's code span.
 */
class ConfigReferenceTest {
    private static final Path PAGE = Path.of(System.getProperty("user.dir")).getParent().resolve("docs/configuration.md");
    private static final Pattern TABLE_HEADER = Pattern.compile("^\\|\\s*(member|key)\\s*\\|.*");
    private static final Pattern ROW_KEY = Pattern.compile("^\\|\\s*`([^`]+)`\\s*\\|.*");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    // a key as written, maybe with "=value"; a placeholder (<member>) or a wildcard (locked.*) is no key
    private static final Pattern CONCRETE_KEY = Pattern.compile("(locked\\.[^\\s=<>*]+)(=\\S*)?");

    @Test
    void theTablesListEveryKeyTheCodeReads() throws IOException {
        Map<String, String> rows = keyRows();
        List<String> missing = new ArrayList<>();
        for (String global : new TreeSet<>(LockedKeys.GLOBAL)) {
            if (!rows.containsKey(global)) {
                missing.add(global);
            }
        }
        for (Member member : Member.values()) {
            String row = rows.get(member.key());
            if (row == null) {
                missing.add(member.key() + " (the member " + member.annotationName() + ")");
            } else if (!member.annotationName().equals(member.key()) && !row.contains("`" + member.annotationName() + "`")) {
                // config reads the annotation's spelling too; a user who copies it from the code should find it
                missing.add(member.key() + "'s other spelling " + member.annotationName());
            }
        }
        assertEquals(List.of(), missing, "keys Locked reads that the tables of " + PAGE + " do not list");
    }

    @Test
    void thePageNamesNoKeyTheCodeDoesNotRead() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (String key : keyRows().keySet()) {
            boolean known = key.startsWith(LockedKeys.PREFIX) ? LockedKeys.GLOBAL.contains(key)
                    : Stream.of(Member.values()).anyMatch(member -> member.key().equals(key));
            if (!known) {
                unknown.add("a row for " + key + ", which is neither a key of LockedKeys.GLOBAL nor a member's key");
            }
        }
        // every key the page's prose and examples spell out, checked as Locked checks a configuration's
        // keys; code blocks are left alone, since one shows the warning about a misspelt key
        boolean inFence = false;
        int spans = 0;
        for (String line : Files.readAllLines(PAGE, StandardCharsets.UTF_8)) {
            if (line.strip().startsWith("```")) {
                inFence = !inFence;
                continue;
            }
            Matcher span = CODE_SPAN.matcher(line);
            while (!inFence && span.find()) {
                Matcher key = CONCRETE_KEY.matcher(span.group(1));
                if (key.matches()) {
                    spans++;
                    LockedKeys.unknown(List.of(key.group(1))).forEach(warning -> unknown.add("`" + span.group(1) + "`: " + warning));
                }
            }
        }
        assertTrue(spans >= LockedKeys.GLOBAL.size(), "found only " + spans + " keys in " + PAGE
                + ": is the pattern still right?");
        assertEquals(List.of(), unknown, "keys in " + PAGE + " that Locked does not read");
    }

    // the key of each row of the key tables, with the row's text
    private static Map<String, String> keyRows() throws IOException {
        Map<String, String> rows = new LinkedHashMap<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(PAGE, StandardCharsets.UTF_8)) {
            if (!line.startsWith("|")) {
                inTable = false;
            } else if (TABLE_HEADER.matcher(line).matches()) {
                inTable = true;
            } else if (inTable) {
                Matcher row = ROW_KEY.matcher(line);
                if (row.matches()) {
                    rows.put(row.group(1), line);
                }
            }
        }
        assertTrue(rows.size() >= Member.values().length, "found only " + rows.size() + " key rows in " + PAGE
                + ": are the tables still headed member and key?");
        return rows;
    }
}
