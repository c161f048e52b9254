package io.locked.it.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Set;

/**
 * A copy of the build to rehearse a release in, so that the rehearsal neither writes into the working
 * tree's target folders nor needs the test modules' sources: every pom of the reactor (Maven reads them
 * all, also with {@code -pl}), the given modules and {@code .mvn} whole, build output left out, and in
 * every pom the snapshot version replaced by the release version, as {@code mvn versions:set} does
 * before a release.
 */
final class BuildCopy {
    private static final Set<String> SKIPPED = Set.of("target", ".git", ".idea", ".ci", "docs");

    private BuildCopy() {
    }

    static void of(Path root, Path copy, List<String> modules, String snapshot, String release) throws IOException {
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                return SKIPPED.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Path relative = root.relativize(file);
                Path target = copy.resolve(relative.toString());
                if (file.getFileName().toString().equals("pom.xml")) {
                    Files.createDirectories(target.getParent());
                    Files.writeString(target, Files.readString(file, StandardCharsets.UTF_8).replace(snapshot, release),
                            StandardCharsets.UTF_8);
                } else if (modules.contains(relative.getName(0).toString()) || relative.startsWith(".mvn")) {
                    Files.createDirectories(target.getParent());
                    Files.copy(file, target);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
