package io.locked.jpa.internal.schema;

import io.locked.jpa.LockDatabase;
import io.locked.jpa.internal.dialect.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The text of a shipped schema script. Needs nothing beyond lock-jpa's own jar, so that
 * {@code java -cp lock-jpa.jar io.locked.jpa.LockSchema} can print it.
 */
public final class ShippedScript {
    private ShippedScript() {
    }

    /** @return the script of a database, as the jar holds it */
    public static String of(LockDatabase database) {
        return read(Dialect.of(database).schemaResource);
    }

    static String read(String resource) {
        try (InputStream in = ShippedScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Schema script " + resource + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("Cannot read " + resource, e);
        }
    }
}
