package io.github.esrel.spring.integration;

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
 * A TCP proxy on loopback in front of a real node that can hold the node's answers: while {@link #hold(boolean)
 * holding}, requests still reach the node, which executes them, and the answers wait in the proxy until the hold ends,
 * then go on. A cluster that stalls and answers late, as a loaded one does: a lock renewed on the server whose holder
 * hears of it only after its lease ended by its own clock.
 */
final class AnswerHoldingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final URI target;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "answer-holding-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private volatile boolean holding;

    AnswerHoldingProxy(URI target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        threads.submit(this::accept);
    }

    /** The proxy's address, with the target's scheme. */
    URI uri() {
        return URI.create(target.getScheme() + "://127.0.0.1:" + server.getLocalPort());
    }

    /** Starts or ends holding the answers; ending it passes on what was held. */
    void hold(boolean on) {
        holding = on;
    }

    private Void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                try {
                    Socket node = new Socket(target.getHost(), target.getPort());
                    open.add(node);
                    threads.submit(() -> pump(client, node, false));
                    threads.submit(() -> pump(node, client, true));
                } catch (IOException e) {
                    closeQuietly(client); // the node refused: so does the proxy
                }
            } catch (IOException e) {
                return null; // closed
            }
        }
        return null;
    }

    private Void pump(Socket from, Socket to, boolean answers) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                while (answers && holding) {
                    Thread.sleep(5);
                }
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // One side closed or reset, or the proxy closed: close the other.
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
