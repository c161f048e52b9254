package io.locked.quarkus.invalid;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Quarkus builds the application at build time: a misused @Locked must fail that build, naming class, method and member. */
class MisuseFailsTheBuildTest {

    @RegisterExtension
    static final QuarkusUnitTest BUILD = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(UnknownParameterJob.class))
            .assertException(failure -> {
                StringBuilder messages = new StringBuilder();
                for (Throwable t = failure; t != null; t = t.getCause()) {
                    messages.append(t.getMessage()).append('\n');
                    for (Throwable suppressed : t.getSuppressed()) {
                        messages.append(suppressed.getMessage()).append('\n');
                    }
                }
                assertTrue(messages.toString().contains("Invalid @Locked.key on " + UnknownParameterJob.class.getName()
                        + "#run(): {jobid} in 'job:{jobid}' names no parameter"), messages.toString());
            });

    @Test
    void buildFails() {
        fail("the application was built although @Locked is misused");
    }
}
