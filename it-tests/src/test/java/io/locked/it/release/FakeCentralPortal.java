package io.locked.it.release;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The two calls of the Central Portal's publisher API that central-publishing-maven-plugin makes, on
 * loopback: an upload, answered with a deployment id, and a status, answered "validated". It keeps the
 * uploaded bundle, so that a test sees exactly what a release would have sent to Maven Central.
 */
final class FakeCentralPortal implements AutoCloseable {
    private final HttpServer server;
    private final AtomicReference<String> uploadQuery = new AtomicReference<>();
    private final AtomicReference<byte[]> bundle = new AtomicReference<>();

    FakeCentralPortal() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/api/v1/publisher/upload", this::upload);
        server.createContext("/api/v1/publisher/status", exchange -> answer(exchange, 200,
                "{\"deploymentId\":\"test-deployment\",\"deploymentName\":\"test\",\"deploymentState\":\"VALIDATED\",\"purls\":[]}"));
        server.start();
    }

    String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The query of the upload request (it says whether the deployment publishes by itself), or null. */
    String uploadQuery() {
        return uploadQuery.get();
    }

    /** The zip file uploaded as the multipart field "bundle", or null when nothing was uploaded. */
    byte[] bundle() {
        return bundle.get();
    }

    private void upload(HttpExchange exchange) throws IOException {
        byte[] body = exchange.getRequestBody().readAllBytes();
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        uploadQuery.set(exchange.getRequestURI().getRawQuery());
        bundle.set(firstPart(body, type.substring(type.indexOf("boundary=") + "boundary=".length()).trim()));
        answer(exchange, 201, "test-deployment");
    }

    // the content of the first part of a multipart/form-data body: the plugin sends only the bundle
    private static byte[] firstPart(byte[] body, String boundary) {
        byte[] delimiter = ("--" + boundary).getBytes(StandardCharsets.ISO_8859_1);
        int start = indexOf(body, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), indexOf(body, delimiter, 0)) + 4;
        int end = indexOf(body, ("\r\n--" + boundary).getBytes(StandardCharsets.ISO_8859_1), start);
        return Arrays.copyOfRange(body, start, end);
    }

    private static int indexOf(byte[] data, byte[] what, int from) {
        outer:
        for (int i = from; i <= data.length - what.length; i++) {
            for (int j = 0; j < what.length; j++) {
                if (data[i + j] != what[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("not a multipart body as expected");
    }

    private static void answer(HttpExchange exchange, int status, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
