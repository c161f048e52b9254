package io.locked.it.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy on 127.0.0.1 between one worker JVM and its database, through which the test
 * breaks that JVM's network while the database and every other JVM run on:
 * <ul>
 *   <li>{@link #resetAll()} resets every connection at once (as a failover or a firewall's
 *   restart would), on both sides: the database sees the client vanish, the client's next read or
 *   write fails. New connections get through, so the worker reconnects at once.</li>
 *   <li>{@link #cut()} resets every connection too and refuses new ones until {@link #restore()}:
 *   the worker is cut off from the database, however often it tries.</li>
 * </ul>
 * A refused connection is accepted and reset before a byte passes, so the client fails at once,
 * as on a refused connect, and the proxy keeps its port for the restore.
 */
public final class DatabaseProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    /** Open connections, and the lock that orders a cut against connections being opened. */
    private final List<Socket[]> connections = new ArrayList<>();
    private boolean cut;
    private volatile boolean closed;

    private DatabaseProxy(ServerSocket listener, String targetHost, int targetPort) {
        this.listener = listener;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    /** @return a proxy in front of that database, accepting on an ephemeral port of 127.0.0.1 */
    public static DatabaseProxy start(MariaDbEndpoint database) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        DatabaseProxy proxy = new DatabaseProxy(listener, database.host(), database.port());
        daemon("proxy-accept-" + listener.getLocalPort(), proxy::accept).start();
        return proxy;
    }

    /** @return the port of 127.0.0.1 it accepts on (see {@link MariaDbEndpoint#through}) */
    public int port() {
        return listener.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException stopped) {
                return;
            }
            if (isCut()) {
                reset(client);
                continue;
            }
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(targetHost, targetPort), 3000);
            } catch (IOException unreachable) {
                reset(client);
                continue;
            }
            Socket[] pair = {client, server};
            synchronized (connections) {
                // a cut that came while this one was being opened covers it too
                if (cut) {
                    endPair(pair, true);
                    continue;
                }
                connections.add(pair);
            }
            daemon("proxy-up", () -> copy(client, server, pair)).start();
            daemon("proxy-down", () -> copy(server, client, pair)).start();
        }
    }

    private void copy(Socket from, Socket to, Socket[] pair) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                out.write(buffer, 0, read);
                out.flush();
            }
            // one side ended normally: end the other normally too
            endPair(pair, false);
        } catch (IOException broken) {
            // reset by resetAll or cut, or by either side: pass the reset on
            endPair(pair, true);
        }
    }

    /**
     * Resets every open connection, both towards the client and towards the database.
     *
     * @return how many connections were cut
     */
    public int resetAll() {
        List<Socket[]> open;
        synchronized (connections) {
            open = new ArrayList<>(connections);
            connections.clear();
        }
        int reset = 0;
        for (Socket[] pair : open) {
            if (!pair[0].isClosed() || !pair[1].isClosed()) {
                reset++;
            }
            endPair(pair, true);
        }
        return reset;
    }

    /**
     * Cuts the worker off: resets every open connection and refuses new ones until {@link #restore()}.
     *
     * @return how many connections were cut
     */
    public int cut() {
        synchronized (connections) {
            cut = true;
        }
        return resetAll();
    }

    /** Lets new connections through again after {@link #cut()}. */
    public void restore() {
        synchronized (connections) {
            cut = false;
        }
    }

    /** @return how many connections pass through the proxy now */
    public int openConnections() {
        synchronized (connections) {
            return connections.size();
        }
    }

    private boolean isCut() {
        synchronized (connections) {
            return cut;
        }
    }

    private void endPair(Socket[] pair, boolean reset) {
        end(pair[0], reset);
        end(pair[1], reset);
        synchronized (connections) {
            connections.remove(pair);
        }
    }

    private static void reset(Socket socket) {
        end(socket, true);
    }

    // SO_LINGER 0 makes close() send RST instead of FIN: the peer sees the connection torn, not ended
    private static void end(Socket socket, boolean reset) {
        try {
            if (reset) {
                socket.setSoLinger(true, 0);
            }
        } catch (SocketException alreadyClosed) {
            // nothing to reset
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    private static Thread daemon(String name, Runnable work) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // stopping anyway
        }
        resetAll();
    }
}
