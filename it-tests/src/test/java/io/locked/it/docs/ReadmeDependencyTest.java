package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's dependency block is the one a newcomer copies: it must import this build's BOM at the
 * version this build makes (bumped with every release) and add lock-jpa.
 */
class ReadmeDependencyTest {
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theDependencyBlockImportsThisBuildsBomAtThisBuildsVersion() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        String version = System.getProperty("locked.version");
        assertNotNull(version, "system property locked.version is not set (it-tests' pom sets it for Surefire)");
        String bom = Files.readString(root.resolve("lock-bom/pom.xml"), StandardCharsets.UTF_8);
        assertTrue(bom.contains("<groupId>io.locked</groupId>\n  <artifactId>lock-bom</artifactId>\n  <version>" + version + "</version>"),
                "lock-bom/pom.xml is not io.locked:lock-bom:" + version);

        String block = null;
        Matcher xml = XML_BLOCK.matcher(Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8));
        while (block == null && xml.find()) {
            block = xml.group(1).contains("<artifactId>lock-bom</artifactId>") ? xml.group(1) : null;
        }
        assertNotNull(block, "the README has no xml block that imports lock-bom");
        String imported = "<groupId>io.locked</groupId>\n      <artifactId>lock-bom</artifactId>\n      <version>" + version
                + "</version>\n      <type>pom</type>\n      <scope>import</scope>";
        assertTrue(block.contains(imported), "the README's BOM import is not\n" + imported + "\nbut\n" + block);
        assertTrue(block.contains("<groupId>io.locked</groupId>\n    <artifactId>lock-jpa</artifactId>\n  </dependency>"),
                "the README's dependency block does not add lock-jpa without a version:\n" + block);
    }
}
