package io.locked.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command that prints a database's schema script, as a user runs it: with lock-jpa's classes
 * alone on the class path, for each database, and refusing a name it has no script for.
 */
class LockSchemaTest {

    @Test
    void printsEachDatabasesScriptWithTheLockAndFenceTables() {
        for (LockDatabase database : LockDatabase.values()) {
            String script = LockSchema.script(database);
            assertTrue(script.contains("CREATE TABLE IF NOT EXISTS locked_lock"), database + ":\n" + script);
            assertTrue(script.contains("CREATE TABLE IF NOT EXISTS locked_fence"), database + ":\n" + script);
        }
    }

    // docs/databases.md shows the scripts of the common databases: they must be the shipped ones, statement for statement
    @Test
    void theDocumentedTablesAreTheShippedScripts() throws Exception {
        String readme = java.nio.file.Files.readString(Path.of("../docs/databases.md"));
        java.util.regex.Matcher blocks = java.util.regex.Pattern.compile("```sql\n(.*?)```", java.util.regex.Pattern.DOTALL)
                .matcher(readme);
        int statements = 0;
        while (blocks.find()) {
            for (String statement : blocks.group(1).split(";")) {
                if (statement.isBlank()) {
                    continue;
                }
                statements++;
                String shown = statement.replaceAll("\\s+", " ").trim();
                boolean shipped = java.util.Arrays.stream(LockDatabase.values()).map(LockSchema::script)
                        .map(script -> script.lines().filter(line -> !line.trim().startsWith("--"))
                                .reduce("", (a, b) -> a + "\n" + b).replaceAll("\\s+", " "))
                        .anyMatch(script -> script.contains(shown));
                assertTrue(shipped, "docs/databases.md shows a statement no script ships:\n" + shown);
            }
        }
        assertEquals(4, statements, "docs/databases.md's lock and fence tables of MariaDB and PostgreSQL");
    }

    @Test
    void runsWithLockJpaAloneOnTheClassPath() throws Exception {
        // target/classes is what lock-jpa.jar holds: no lock-cdi, JPA or driver beside it
        Path classes = Path.of(LockSchema.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Process java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", classes.toString(), LockSchema.class.getName(), "MariaDB").redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(java.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, java.exitValue(), output);
        assertEquals(LockSchema.script(LockDatabase.MARIADB), output);
    }

    @Test
    void refusesADatabaseWithoutAScriptNamingThoseThatHaveOne() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = LockSchema.print(new String[] {"derby"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(2, status);
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("[mariadb, mysql, postgresql, h2]"), err.toString());
    }
}
