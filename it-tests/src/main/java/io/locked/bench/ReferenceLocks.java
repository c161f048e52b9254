package io.locked.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The locks a team might use instead of a table, as the reference the hot key is measured against
 * (issue 45): Redis {@code SET NX} and the database's own named locks. Neither gives a fencing token
 * nor survives its holder's session; they are the speed to reach, not an equal.
 *
 * <ul>
 *   <li><b>Redis</b>: {@code SET key owner NX PX 30000} to take (a refusal tried again with the
 *       {@link Backoff} of every lease case), and a compare-and-delete script to free, so that a holder
 *       never frees a lease that ran out and was taken by another: the form Redis's documentation gives
 *       for a single instance. One connection per cycling thread, RESP written by hand (no client
 *       library: its own pooling would be measured too).</li>
 *   <li><b>Named locks</b>: MariaDB's and MySQL's {@code GET_LOCK} / {@code RELEASE_LOCK}, PostgreSQL's
 *       {@code pg_advisory_lock} / {@code pg_advisory_unlock} on the key's 64-bit hash, on a pooled
 *       connection: they queue in the server as a pessimistic lock does. H2 has none.</li>
 * </ul>
 */
final class ReferenceLocks implements AutoCloseable {
    private static final String COMPARE_AND_DELETE =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private final DataSource pool;
    private final BenchDatabase database;
    private final InetSocketAddress redis;
    private final List<RedisConnection> opened = new ArrayList<>();
    private final ThreadLocal<RedisConnection> redisConnection = ThreadLocal.withInitial(this::openRedis);

    /** @param redis where Redis listens ({@code bench.redis}, 127.0.0.1:6379 by default) */
    ReferenceLocks(DataSource pool, BenchDatabase database, InetSocketAddress redis) {
        this.pool = pool;
        this.database = database;
        this.redis = redis;
    }

    /** @return whether Redis answers a {@code PING}; said on the console when it does not */
    boolean redisAnswers() {
        try (RedisConnection connection = new RedisConnection(redis)) {
            return "PONG".equals(connection.call("PING"));
        } catch (IOException | RuntimeException unreachable) {
            System.err.println("left out: Redis SET NX: no Redis at " + redis + " (" + unreachable + ")");
            return false;
        }
    }

    /** @return whether the database has named locks (not H2) */
    boolean namedLocks() {
        return database != BenchDatabase.H2;
    }

    void redisSetNx(String key, Runnable inside) throws IOException {
        RedisConnection connection = redisConnection.get();
        String owner = UUID.randomUUID().toString();
        Backoff.untilTaken(() -> "OK".equals(connection.call("SET", key, owner, "NX", "PX", "30000")));
        try {
            inside.run();
        } finally {
            Object freed = connection.call("EVAL", COMPARE_AND_DELETE, "1", key, owner);
            if (!Long.valueOf(1).equals(freed)) {
                throw new IllegalStateException("Redis lease of '" + key + "' was gone at its release: " + freed);
            }
        }
    }

    void namedLock(String key, Runnable inside) throws SQLException {
        boolean postgres = database == BenchDatabase.POSTGRESQL;
        try (Connection connection = pool.getConnection()) {
            // pg_advisory_lock returns void: the row of the select around it says it returned
            String take = postgres ? "SELECT 1 FROM (SELECT pg_advisory_lock(hashtextextended(?, 0))) AS taken"
                    : "SELECT GET_LOCK(?, 30)";
            String free = postgres ? "SELECT pg_advisory_unlock(hashtextextended(?, 0))" : "SELECT RELEASE_LOCK(?)";
            if (!answersTrue(connection, take, key)) {
                throw new IllegalStateException("named lock '" + key + "' not taken within 30 s");
            }
            try {
                inside.run();
            } finally {
                if (!answersTrue(connection, free, key)) {
                    throw new IllegalStateException("named lock '" + key + "' was not held at its release");
                }
            }
        }
    }

    private static boolean answersTrue(Connection connection, String sql, String key) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, key);
            try (ResultSet row = statement.executeQuery()) {
                if (!row.next()) {
                    return false;
                }
                // GET_LOCK, RELEASE_LOCK and the select around pg_advisory_lock answer 1, pg_advisory_unlock true
                Object answer = row.getObject(1);
                return Boolean.TRUE.equals(answer) || answer instanceof Number number && number.intValue() == 1;
            }
        }
    }

    private RedisConnection openRedis() {
        try {
            RedisConnection connection = new RedisConnection(redis);
            synchronized (opened) {
                opened.add(connection);
            }
            return connection;
        } catch (IOException unreachable) {
            throw new IllegalStateException("no Redis at " + redis, unreachable);
        }
    }

    @Override
    public void close() {
        synchronized (opened) {
            opened.forEach(RedisConnection::close);
            opened.clear();
        }
    }

    /** One Redis connection: commands as RESP arrays of bulk strings, replies read back as Java values. */
    private static final class RedisConnection implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        RedisConnection(InetSocketAddress address) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(address, 2000);
            socket.setSoTimeout(60_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        /** @return a simple string, a long, a bulk string, or null (a null bulk string) */
        Object call(String... words) throws IOException {
            StringBuilder command = new StringBuilder("*").append(words.length).append("\r\n");
            for (String word : words) {
                byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
                command.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
            }
            out.write(command.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return reply();
        }

        private Object reply() throws IOException {
            int type = in.read();
            String line = line();
            return switch (type) {
                case '+' -> line;
                case ':' -> Long.parseLong(line);
                case '$' -> {
                    int length = Integer.parseInt(line);
                    if (length < 0) {
                        yield null;
                    }
                    byte[] bulk = in.readNBytes(length + 2);
                    yield new String(bulk, 0, length, StandardCharsets.UTF_8);
                }
                case '-' -> throw new IOException("Redis answered: " + line);
                default -> throw new IOException("Redis answered a reply of type " + (char) type + ": " + line);
            };
        }

        private String line() throws IOException {
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != '\r'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("Redis closed the connection");
                }
                line.append((char) c);
            }
            in.read(); // '\n'
            return line.toString();
        }

        @Override
        public void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing a benchmark's connection: nothing to do about it
            }
        }
    }
}
