package io.locked.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy on 127.0.0.1 in front of a database that the test can make stop answering, as a hung
 * server or a silent network does: while stalled it passes no byte either way and connects no new
 * client, without closing anything, so clients wait on their reads. Resumed, it passes everything on.
 */
public final class StallingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new ArrayList<>();
    private final Object gate = new Object();
    private boolean stalled;
    private volatile boolean closed;

    private StallingProxy(ServerSocket listener, InetSocketAddress target) {
        this.listener = listener;
        this.target = target;
    }

    public static StallingProxy start(String host, int port) throws IOException {
        return startOn(0, host, port);
    }

    /** @param localPort the port to listen on, 0 for any free one: a database that comes up where clients look */
    public static StallingProxy startOn(int localPort, String host, int port) throws IOException {
        StallingProxy proxy = new StallingProxy(new ServerSocket(localPort, 50, InetAddress.getLoopbackAddress()),
                new InetSocketAddress(host, port));
        daemon(proxy::accept).start();
        return proxy;
    }

    public int port() {
        return listener.getLocalPort();
    }

    public void stall() {
        synchronized (gate) {
            stalled = true;
        }
    }

    public void resume() {
        synchronized (gate) {
            stalled = false;
            gate.notifyAll();
        }
    }

    private void passWhenOpen() throws InterruptedException {
        synchronized (gate) {
            while (stalled && !closed) {
                gate.wait();
            }
        }
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                daemon(() -> connect(client)).start();
            } catch (IOException stopped) {
                return;
            }
        }
    }

    private void connect(Socket client) {
        try {
            passWhenOpen();
            Socket server = new Socket();
            server.connect(target, 3000);
            synchronized (sockets) {
                sockets.add(client);
                sockets.add(server);
            }
            daemon(() -> copy(client, server)).start();
            daemon(() -> copy(server, client)).start();
        } catch (IOException | InterruptedException unreachable) {
            closeQuietly(client);
        }
    }

    private void copy(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int read;
            while ((read = in.read(buffer)) >= 0) {
                passWhenOpen();
                out.write(buffer, 0, read);
                out.flush();
            }
        } catch (IOException | InterruptedException ended) {
            // one side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static Thread daemon(Runnable work) {
        Thread thread = new Thread(work, "stalling-proxy");
        thread.setDaemon(true);
        return thread;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        resume();
        listener.close();
        synchronized (sockets) {
            sockets.forEach(StallingProxy::closeQuietly);
        }
    }
}
