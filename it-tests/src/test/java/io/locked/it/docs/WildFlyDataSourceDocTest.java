package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The {@code jboss-cli} commands that getting-started.md gives WildFly users are the ones the WildFly
 * tests run (it-tests/wildfly reads them from app-datasource.cli), so the docs show a datasource set-up
 * that is known to work.
 */
class WildFlyDataSourceDocTest {

    @Test
    void theGettingStartedCommandsAreTheOnesTheWildFlyTestsRun() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        String commands = Files.readString(root.resolve("it-tests/wildfly/src/test/resources/app-datasource.cli"), StandardCharsets.UTF_8);
        assertTrue(commands.startsWith("data-source add "), "app-datasource.cli no longer adds the datasource:\n" + commands);
        String guide = Files.readString(root.resolve("docs/getting-started.md"), StandardCharsets.UTF_8);
        String block = "```\n" + commands + "```\n";
        assertTrue(guide.contains(block), "docs/getting-started.md does not show, as a block of its own, the commands of"
                + " it-tests/wildfly/src/test/resources/app-datasource.cli:\n" + block);
    }
}
