package io.locked.eeapp;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls of the application's catalog that stay inside their lock until let go (io.locked.eeapp.HeldCalls),
 * started on either server and watched by asking every server which of them are inside: what the
 * permits and read/write checks see of the lock from outside, without guessing from timing. Closing
 * lets every call go, so that a failed check leaves no call holding a lock on a server.
 */
final class HeldBatch implements AutoCloseable {
    private static final Duration PATIENCE = Duration.ofSeconds(60);
    private final HttpClient http;
    private final List<? extends EeApplicationTests.Server> servers;
    private final String batch;
    private final Map<String, EeApplicationTests.Server> where = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<HttpResponse<String>>> calls = new LinkedHashMap<>();

    HeldBatch(HttpClient http, List<? extends EeApplicationTests.Server> servers, String batch) {
        this.http = http;
        this.servers = servers;
        this.batch = batch;
    }

    /** Starts a call that stays inside once it holds its lock, and waits until the servers count {@code inside} calls. */
    List<String> enter(EeApplicationTests.Server server, String path, String call, int inside) throws Exception {
        start(server, path, call);
        return awaitInside(inside, call);
    }

    /**
     * Starts a call that the lock should keep out and returns its answer; fails if it gets inside instead.
     *
     * @param inside how many calls are inside already, which this one must not add to
     */
    HttpResponse<String> refused(EeApplicationTests.Server server, String path, String call, int inside) throws Exception {
        CompletableFuture<HttpResponse<String>> answer = start(server, path, call);
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!answer.isDone()) {
            List<String> now = inside();
            if (now.size() > inside) {
                throw new AssertionError(call + " got in beside " + inside + " others: " + now);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within " + PATIENCE.toSeconds() + " s, " + call + " neither answered nor got in");
            }
            Thread.sleep(20); // polling the servers
        }
        return answer.get();
    }

    /** Lets the call go and returns its answer. */
    HttpResponse<String> letGo(String call) throws Exception {
        send(where.get(call), "held/" + batch + "/" + call);
        return calls.get(call).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    /** @return every server's calls of the batch inside, one line each: call, instance, key held */
    List<String> inside() throws IOException, InterruptedException {
        List<String> inside = new ArrayList<>();
        for (EeApplicationTests.Server server : servers) {
            HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri(server, "held/" + batch)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new AssertionError(server.name() + " answered " + answer.statusCode() + ": " + answer.body());
            }
            answer.body().lines().filter(line -> !line.isBlank()).forEach(inside::add);
        }
        return inside;
    }

    private CompletableFuture<HttpResponse<String>> start(EeApplicationTests.Server server, String path, String call) {
        where.put(call, server);
        CompletableFuture<HttpResponse<String>> answer = http.sendAsync(request(uri(server, "catalog/" + batch + "/" + path
                + "/" + call)), HttpResponse.BodyHandlers.ofString());
        calls.put(call, answer);
        return answer;
    }

    private List<String> awaitInside(int count, String call) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (true) {
            List<String> inside = inside();
            if (inside.size() == count) {
                return inside;
            }
            CompletableFuture<HttpResponse<String>> answer = calls.get(call);
            if (answer.isDone()) {
                HttpResponse<String> response = answer.get();
                throw new AssertionError(call + " on " + where.get(call).name() + " did not stay inside: "
                        + response.statusCode() + " " + response.body() + "; inside: " + inside);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("within " + PATIENCE.toSeconds() + " s, not " + count + " calls inside but " + inside);
            }
            Thread.sleep(20); // polling the servers
        }
    }

    @Override
    public void close() throws Exception {
        for (Map.Entry<String, EeApplicationTests.Server> call : where.entrySet()) {
            if (!calls.get(call.getKey()).isDone()) {
                send(call.getValue(), "held/" + batch + "/" + call.getKey());
            }
        }
    }

    private void send(EeApplicationTests.Server server, String path) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(request(uri(server, path)), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() / 100 != 2) {
            throw new AssertionError(server.name() + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }

    private static HttpRequest request(URI uri) {
        return HttpRequest.newBuilder(uri).timeout(PATIENCE.multipliedBy(2)).POST(HttpRequest.BodyPublishers.noBody()).build();
    }

    private static URI uri(EeApplicationTests.Server server, String path) {
        return server.http().resolve(path);
    }
}
