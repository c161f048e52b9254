package io.locked.it.release;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** A pom as the bundle holds it, asked for the metadata Maven Central requires. */
record PublishedPom(String text, Element project) {
    /**
     * What Central requires of every pom. {@code name} is not inherited in Maven, so each pom needs its
     * own; the rest may come from a parent, which must then be published too.
     */
    static final List<String> REQUIRED = List.of("name", "description", "url", "licenses/license/name",
            "licenses/license/url", "scm/url", "scm/connection", "developers/developer/name");

    static PublishedPom parse(byte[] pom) throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(new ByteArrayInputStream(pom)).getDocumentElement();
        return new PublishedPom(new String(pom, StandardCharsets.UTF_8), project);
    }

    /** Whether this pom, or for an inherited element a parent among {@code poms}, has {@code path}. */
    boolean has(String path, Map<String, PublishedPom> poms) {
        Element found = find(project, path);
        if (found != null && !found.getTextContent().isBlank()) {
            return true;
        }
        PublishedPom parent = parent() == null ? null : poms.get(parent());
        return !path.equals("name") && parent != null && parent.has(path, poms);
    }

    /** The artifactId of the parent, or null. */
    String parent() {
        Element parent = find(project, "parent/artifactId");
        return parent == null ? null : parent.getTextContent().trim();
    }

    /** groupId:artifactId:version of every managed dependency, as written. */
    List<String> managedDependencies() {
        List<String> managed = new ArrayList<>();
        Element dependencies = find(project, "dependencyManagement/dependencies");
        for (Node node = dependencies == null ? null : dependencies.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element dependency) {
                managed.add(find(dependency, "groupId").getTextContent().trim() + ":"
                        + find(dependency, "artifactId").getTextContent().trim() + ":"
                        + find(dependency, "version").getTextContent().trim());
            }
        }
        return managed;
    }

    // the first element along the path of direct children, or null
    private static Element find(Element from, String path) {
        Element current = from;
        for (String name : path.split("/")) {
            Element next = null;
            for (Node node = current.getFirstChild(); node != null && next == null; node = node.getNextSibling()) {
                if (node instanceof Element element && element.getTagName().equals(name)) {
                    next = element;
                }
            }
            if (next == null) {
                return null;
            }
            current = next;
        }
        return current;
    }
}
