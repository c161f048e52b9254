package io.locked.it.fault;

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
 * A TCP proxy on 127.0.0.1 between one worker JVM and its database, which the test can tell to
 * cut every connection at once with a reset (as a firewall or a failover would), on both sides:
 * the database sees the client vanish, the client's next read or write fails. It keeps accepting
 * new connections afterwards, so the worker can reconnect.
 */
final class ResettingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket[]> connections = new ArrayList<>();
    private volatile boolean closed;

    private ResettingProxy(ServerSocket listener, String targetHost, int targetPort) {
        this.listener = listener;
        this.targetHost = targetHost;
        this.targetPort = targetPort;
    }

    /** @return a proxy forwarding to that address, accepting on an ephemeral port of 127.0.0.1 */
    static ResettingProxy start(String targetHost, int targetPort) throws IOException {
        ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ResettingProxy proxy = new ResettingProxy(listener, targetHost, targetPort);
        daemon("proxy-accept-" + listener.getLocalPort(), proxy::accept).start();
        return proxy;
    }

    int port() {
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
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(targetHost, targetPort), 3000);
            } catch (IOException unreachable) {
                reset(client);
                continue;
            }
            Socket[] pair = {client, server};
            synchronized (connections) {
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
        } catch (IOException cut) {
            // reset by resetAll, or by either side: pass the reset on
            endPair(pair, true);
        }
    }

    /**
     * Resets every open connection, both towards the client and towards the database.
     *
     * @return how many connections were cut
     */
    int resetAll() {
        List<Socket[]> open;
        synchronized (connections) {
            open = new ArrayList<>(connections);
            connections.clear();
        }
        int cut = 0;
        for (Socket[] pair : open) {
            if (!pair[0].isClosed() || !pair[1].isClosed()) {
                cut++;
            }
            endPair(pair, true);
        }
        return cut;
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
