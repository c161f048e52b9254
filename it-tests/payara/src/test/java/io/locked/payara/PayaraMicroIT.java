package io.locked.payara;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.locked.eeapp.EeApplicationTests;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The same application as on WildFly on two Payara Micro 6 instances, with EclipseLink and the
 * application's own {@code @DataSourceDefinition}, on one MariaDB database. Instances start once for
 * the class.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PayaraMicroIT extends EeApplicationTests {
    private final List<PayaraMicroInstance> instances = new ArrayList<>();

    @Override
    protected List<PayaraMicroInstance> servers() {
        return instances;
    }

    @Override
    protected String label() {
        return "payara";
    }

    @BeforeAll
    void startTwoInstances() throws Exception {
        Path app = Path.of(System.getProperty("payara.app"));
        for (String name : List.of("a", "b")) {
            PayaraMicroInstance instance = new PayaraMicroInstance(name);
            instances.add(instance);
            instance.start(app, true);
            System.out.printf("[payara] instance %s booted and ready in %d ms%n", name, instance.bootMillis());
        }
    }

    @AfterAll
    void stopInstances() throws InterruptedException {
        for (PayaraMicroInstance instance : instances) {
            instance.close();
        }
    }

    @Test
    void aBadKeyTemplateFailsTheDeploymentNamingClassMethodAndMember() throws Exception {
        Path war = Path.of(System.getProperty("payara.test-classes")).getParent().resolve("bad-key.war");
        writeMisusedWar(war);
        try (PayaraMicroInstance misused = new PayaraMicroInstance("misused")) {
            misused.start(war, false);
            String expected = "Invalid @Locked.key on io.locked.payara.misuse.BadKeyBean#ship()";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            while (!misused.log().contains(expected) && misused.process().isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(200); // polling the instance's log
            }
            String log = misused.log();
            assertTrue(log.contains(expected) && log.contains("nope"), log);
        }
    }

    /** A WAR of the misused bean with the lock jars of the application's WAR. */
    private static void writeMisusedWar(Path war) throws IOException {
        Path bean = Path.of(System.getProperty("payara.test-classes")).resolve("io/locked/payara/misuse/BadKeyBean.class");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(war));
             ZipFile app = new ZipFile(System.getProperty("payara.app"))) {
            entry(out, "WEB-INF/classes/io/locked/payara/misuse/BadKeyBean.class", Files.readAllBytes(bean));
            entry(out, "WEB-INF/beans.xml", app.getInputStream(app.getEntry("WEB-INF/beans.xml")).readAllBytes());
            for (ZipEntry library : app.stream().filter(e -> e.getName().startsWith("WEB-INF/lib/lock-") && !e.isDirectory()).toList()) {
                entry(out, library.getName(), app.getInputStream(library).readAllBytes());
            }
        }
    }

    private static void entry(ZipOutputStream out, String name, byte[] content) throws IOException {
        out.putNextEntry(new ZipEntry(name));
        out.write(content);
        out.closeEntry();
    }
}
