package io.locked.eeapp;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/** A WAR of one misused bean with the lock jars of the application's WAR: its deployment must fail. */
public final class MisusedWar {
    private MisusedWar() {
    }

    /**
     * @param war        where to write it; it appears whole, so that a deployment scanner never sees half of it
     * @param classes    the test classes holding the bean
     * @param beanClass  the bean's class
     * @param app        the application's WAR, whose beans.xml and lock jars it takes
     */
    public static void write(Path war, Path classes, Class<?> beanClass, Path app) throws IOException {
        String entryName = beanClass.getName().replace('.', '/') + ".class";
        Path part = war.resolveSibling(war.getFileName() + ".part");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(part));
             ZipFile application = new ZipFile(app.toFile())) {
            entry(out, "WEB-INF/classes/" + entryName, Files.readAllBytes(classes.resolve(entryName)));
            entry(out, "WEB-INF/beans.xml", application.getInputStream(application.getEntry("WEB-INF/beans.xml")).readAllBytes());
            for (ZipEntry library : application.stream()
                    .filter(e -> e.getName().startsWith("WEB-INF/lib/lock-") && !e.isDirectory()).toList()) {
                entry(out, library.getName(), application.getInputStream(library).readAllBytes());
            }
        }
        Files.move(part, war, StandardCopyOption.REPLACE_EXISTING); // an earlier run's may still be there
    }

    private static void entry(ZipOutputStream out, String name, byte[] content) throws IOException {
        out.putNextEntry(new ZipEntry(name));
        out.write(content);
        out.closeEntry();
    }
}
