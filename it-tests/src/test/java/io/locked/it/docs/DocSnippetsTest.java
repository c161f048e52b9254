package io.locked.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every Java snippet of the README and of docs/ compiles against the library as it is, so the docs
 * cannot drift from the API. A snippet is compiled as the body of a method, as the members of a
 * class, or as a class of its own (when it declares one). What it uses without declaring comes from
 * a hidden comment right above it, {@code <!-- snippet context: ... -->}, whose text goes before the
 * snippet in the same scope; {@code { ... }} stands for a body and compiles as an empty one.
 * A snippet that starts with imports is compiled with those imports only, so a wrong or missing one
 * fails; the README's snippets, which a newcomer copies as they stand, must all start with theirs.
 * The other docs' snippets may leave them out and get the package imports below.
 */
class DocSnippetsTest {
    private static final Pattern BLOCK = Pattern.compile(
            "(?:<!-- snippet context: (?<context>.*?) -->\\s*\\n)?```java\\n(?<code>.*?)```", Pattern.DOTALL);
    // the import lines a snippet starts with, blank lines between them included
    private static final Pattern OWN_IMPORTS = Pattern.compile("(?:import (?:static )?[\\w.]+(?:\\.\\*)?;\\n\\s*)+");
    private static final String IMPORTS = String.join("\n",
            "import io.locked.api.*;",
            "import io.locked.jpa.*;",
            "import jakarta.enterprise.context.*;",
            "import jakarta.enterprise.inject.*;",
            "import jakarta.inject.*;",
            "import jakarta.persistence.*;",
            "import java.sql.*;",
            "import java.time.*;",
            "import java.util.*;",
            "import java.util.concurrent.*;",
            "import javax.sql.DataSource;",
            "");

    @Test
    void everyJavaSnippetOfTheDocsCompiles() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        List<Path> documents = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<JavaFileObject> sources = new ArrayList<>();
        List<String> unimported = new ArrayList<>();
        for (Path document : documents) {
            Matcher block = BLOCK.matcher(Files.readString(document, StandardCharsets.UTF_8));
            int inDocument = 0;
            while (block.find()) {
                String name = "Snippet" + sources.size();
                String where = document.getFileName() + " snippet " + ++inDocument;
                if (document.getFileName().toString().equals("README.md")
                        && !OWN_IMPORTS.matcher(block.group("code")).lookingAt()) {
                    unimported.add(where);
                }
                sources.add(new Snippet(name, where, wrap(name, block.group("context"), block.group("code"))));
            }
        }
        assertEquals(List.of(), unimported, "README snippets without their imports");
        assertTrue(sources.size() >= 5, "found only " + sources.size() + " snippets: is the pattern still right?");

        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertNotNull(compiler, "no Java compiler in this JVM (a JDK is needed)");
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out = Files.createTempDirectory("snippets");
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            boolean compiled = compiler.getTask(null, files, diagnostics,
                    List.of("-classpath", System.getProperty("java.class.path"), "-d", out.toString(), "-proc:none",
                            "-Xlint:none"),
                    null, sources).call();
            StringBuilder errors = new StringBuilder();
            for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
                if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
                    Snippet snippet = (Snippet) diagnostic.getSource();
                    errors.append(snippet == null ? "" : snippet.where).append(", line ").append(diagnostic.getLineNumber())
                            .append(": ").append(diagnostic.getMessage(null)).append('\n')
                            .append(snippet == null ? "" : snippet.line(diagnostic.getLineNumber())).append('\n');
                }
            }
            assertTrue(compiled, () -> "snippets that do not compile:\n" + errors);
            assertEquals("", errors.toString());
        }
    }

    // a class of its own, members of a class, or the body of a method, in that order of precedence; the
    // snippet's own imports on top, or the package imports when it has none
    private static String wrap(String name, String context, String code) {
        Matcher own = OWN_IMPORTS.matcher(code);
        String imports = own.lookingAt() ? own.group() : IMPORTS;
        String body = code.substring(own.lookingAt() ? own.end() : 0).replace("{ ... }", "{ }");
        String given = context == null ? "" : context + "\n";
        if (Pattern.compile("(?m)^(public )?(final )?class \\w+").matcher(body).find()) {
            assertFalse(body.contains("class " + name), "snippet names clash with the wrapper");
            return imports + given + body.replaceFirst("public class", "class");
        }
        if (Pattern.compile("(?m)^@Produces|^\\w[\\w<>, ]* \\w+\\([^)]*\\) \\{").matcher(body).find()) {
            return imports + "class " + name + " {\n" + given + body + "\n}\n";
        }
        return imports + "class " + name + " {\n" + given + "void run() throws Exception {\n" + body + "\n}\n}\n";
    }

    /** One snippet as the compiler sees it, with where it came from for the message. */
    private static final class Snippet extends SimpleJavaFileObject {
        private final String where;
        private final String text;

        Snippet(String name, String where, String text) {
            super(URI.create("string:///" + name.replace('.', '/') + Kind.SOURCE.extension), Kind.SOURCE);
            this.where = where;
            this.text = text;
        }

        String line(long number) {
            String[] lines = text.split("\n", -1);
            return number >= 1 && number <= lines.length ? "    " + lines[(int) number - 1].trim() : "";
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
