package io.locked.quarkus.app;

import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The critical sections this instance ran, per counter, for the test's history checker: the
 * instance, the fencing token, and when the section entered and left ({@code System.nanoTime()},
 * comparable across the JVMs of one Linux machine).
 */
@ApplicationScoped
public class History {
    private final Queue<String> sections = new ConcurrentLinkedQueue<>();

    @ConfigProperty(name = "locked-app.instance", defaultValue = "quarkus")
    String instance;

    void section(String counter, long token, long enterNanos, long exitNanos) {
        sections.add(counter + " " + instance + " " + token + " " + enterNanos + " " + exitNanos);
    }

    /** @return one line per section: counter, instance, token, entered, left */
    public List<String> sections() {
        return List.copyOf(sections);
    }
}
