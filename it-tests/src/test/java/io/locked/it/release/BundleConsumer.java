package io.locked.it.release;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An application that depends on Locked as the README tells it to, built against a release bundle
 * alone: its pom is the README's dependency block at the release version, its only repositories the
 * unpacked bundle and, for Maven's own plugins, the local repository (read as a remote one, so that
 * nothing of the rehearsal lands in it).
 */
final class BundleConsumer {
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);

    private BundleConsumer() {
    }

    /** Writes the application into {@code dir}, with the bundle's files under {@code dir/bundle}. */
    static void write(Path dir, Path readme, Map<String, byte[]> bundle, String snapshot, String release,
                      Path localRepository) throws IOException {
        for (Map.Entry<String, byte[]> file : bundle.entrySet()) {
            if (file.getKey().endsWith("/")) {
                continue;
            }
            Path target = dir.resolve("bundle").resolve(file.getKey());
            Files.createDirectories(target.getParent());
            Files.write(target, file.getValue());
        }
        String block = null;
        Matcher xml = XML_BLOCK.matcher(Files.readString(readme, StandardCharsets.UTF_8));
        while (block == null && xml.find()) {
            block = xml.group(1).contains("<artifactId>lock-bom</artifactId>") ? xml.group(1) : null;
        }
        if (block == null) {
            throw new IllegalStateException("the README has no xml block that imports lock-bom");
        }
        Files.writeString(dir.resolve("pom.xml"), String.join("\n",
                "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">",
                "<modelVersion>4.0.0</modelVersion>",
                "<groupId>rehearsal</groupId><artifactId>application</artifactId><version>1</version>",
                repositories("repositories", "repository", localRepository, dir.resolve("bundle")),
                repositories("pluginRepositories", "pluginRepository", localRepository, null),
                block.replace(snapshot, release),
                "</project>"), StandardCharsets.UTF_8);
    }

    /** The command that lists the application's io.locked dependencies into {@code dir/dependencies.txt}. */
    static List<String> listDependencies(Path mavenHome, Path dir) {
        return List.of(mavenHome.resolve("bin").resolve("mvn").toString(), "-B", "-ntp",
                "-Dmaven.repo.local=" + dir.resolve("repository"),
                "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list", "-DincludeGroupIds=io.locked",
                "-DoutputFile=" + dir.resolve("dependencies.txt"));
    }

    // "central" is replaced, so that the build reaches no network; a local repository keeps no checksums,
    // the bundle must have right ones
    private static String repositories(String list, String element, Path localRepository, Path bundle) {
        StringBuilder xml = new StringBuilder("<" + list + ">")
                .append(repository(element, "central", localRepository, "ignore"));
        if (bundle != null) {
            xml.append(repository(element, "bundle", bundle, "fail"));
        }
        return xml.append("</").append(list).append(">").toString();
    }

    private static String repository(String element, String id, Path path, String checksumPolicy) {
        return "<" + element + "><id>" + id + "</id><url>" + path.toUri() + "</url><releases><checksumPolicy>"
                + checksumPolicy + "</checksumPolicy></releases></" + element + ">";
    }
}
