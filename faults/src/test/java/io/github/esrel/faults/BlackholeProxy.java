package io.github.esrel.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP proxy on loopback in front of one node's HTTP port, for a client that the test cuts off from the cluster
 * while it keeps running. While {@link #blackhole(boolean) blackholed} it forwards nothing in either direction and
 * answers nothing: bytes sent are read and dropped, new connections are accepted and left hanging, as behind a
 * network that drops every packet. Lifting the blackhole closes the connections that hung in it (as TCP gives up on
 * them in the end) and forwards again.
 */
final class BlackholeProxy implements AutoCloseable {

    private final ServerSocket server;
    private final URI target;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "blackhole-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean blackholed;

    BlackholeProxy(URI target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.submit(this::accept);
    }

    /** The proxy's address, with the target's scheme. */
    URI uri() {
        return URI.create(target.getScheme() + "://127.0.0.1:" + server.getLocalPort());
    }

    /** Starts or ends the blackhole; ending it closes every connection made or used while it lasted. */
    void blackhole(boolean on) {
        blackholed = on;
        if (!on) {
            for (Socket s : open) {
                closeQuietly(s);
            }
        }
    }

    private Void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                threads.submit(() -> connect(client));
            } catch (IOException e) {
                return null; // closed
            }
        }
        return null;
    }

    private Void connect(Socket client) {
        try {
            while (blackholed && !client.isClosed()) {
                Thread.sleep(20); // a connection made into the blackhole hangs until it ends
            }
            if (client.isClosed()) {
                return null;
            }
            Socket node = new Socket(target.getHost(), target.getPort());
            open.add(node);
            threads.submit(() -> pump(client, node));
            threads.submit(() -> pump(node, client));
        } catch (IOException | InterruptedException e) {
            closeQuietly(client);
        }
        return null;
    }

    private Void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            boolean cutOff = false;
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                // Once a connection has been in the blackhole it stays dead, as its packets were lost.
                cutOff |= blackholed;
                if (!cutOff) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        } catch (IOException e) {
            // One side closed or reset: close the other.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
        return null;
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        open.forEach(this::closeQuietly);
        threads.shutdownNow();
    }
}
