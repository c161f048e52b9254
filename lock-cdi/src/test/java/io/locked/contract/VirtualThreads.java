package io.locked.contract;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadFactory;

/**
 * Java 21's virtual threads seen from tests compiled for Java 17: made and counted by reflection. The tests
 * that use them run where the JVM has them ({@code @EnabledForJreRange(min = JAVA_21)}).
 */
public final class VirtualThreads {
    private VirtualThreads() {
    }

    /** @return {@code Thread.ofVirtual().name(prefix, 0).factory()} */
    public static ThreadFactory factory(String prefix) {
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Class<?> builderType = Class.forName("java.lang.Thread$Builder");
            builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
            return (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("this JVM has no virtual threads: " + Runtime.version(), e);
        }
    }

    /**
     * Counts the threads whose stack holds the frame, virtual ones included (a thread per task or started
     * on its own: neither is in {@code Thread.getAllStackTraces()}), from the JVM's thread dump
     * ({@code HotSpotDiagnosticMXBean.dumpThreads}, Java 21+).
     *
     * @param frame a method as a thread dump names it, {@code package.Class.method}
     */
    public static int withFrame(String frame) {
        Path folder = null;
        try {
            folder = Files.createTempDirectory("locked-threads");
            Path dump = folder.resolve("threads.txt");
            Class<?> bean = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
            Class<?> format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
            bean.getMethod("dumpThreads", String.class, format).invoke(
                    ManagementFactory.getPlatformMXBean(bean.asSubclass(java.lang.management.PlatformManagedObject.class)),
                    dump.toString(), format.getField("TEXT_PLAIN").get(null));
            int count = 0;
            String needle = " " + frame + "(";
            try (var lines = Files.lines(dump)) {
                count = (int) lines.filter(line -> line.contains(needle)).count();
            }
            Files.delete(dump);
            return count;
        } catch (ReflectiveOperationException | IOException e) {
            throw new IllegalStateException("no thread dump on " + Runtime.version(), e);
        } finally {
            if (folder != null) {
                folder.toFile().delete();
            }
        }
    }
}
