package io.github.esrel.occ;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A TCP proxy in front of a real node that can lose the answer to a request: it forwards the request whole, lets the
 * node execute it, reads the node's answer and closes the client's connection instead of passing the answer on. The
 * client sees a connection closed after sending, as when a node or a link fails mid-request, while the node has
 * applied the write: the fault that makes an outcome unknown. Messages are framed as HTTP/1.1 frames them: by
 * {@code Content-Length} or by chunks.
 */
final class ResponseDroppingProxy implements AutoCloseable {

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "response-dropping-proxy");
        t.setDaemon(true);
        return t;
    });
    private final AtomicReference<Predicate<String>> dropNext = new AtomicReference<>();
    private final AtomicInteger dropped = new AtomicInteger();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    ResponseDroppingProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        pool.execute(this::accept);
    }

    /** The port clients connect to. */
    int port() {
        return server.getLocalPort();
    }

    /**
     * Loses the answer to the next request whose request line ({@code PUT /i/_doc/1?if_seq_no=3&...}) matches; once.
     */
    void dropResponseToNext(Predicate<String> requestLine) {
        dropNext.set(requestLine);
    }

    /** Answers lost so far. */
    int dropped() {
        return dropped.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                open.add(client);
                pool.execute(() -> serve(client));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** One client connection: its requests in turn, each forwarded and answered on one connection to the node. */
    private void serve(Socket client) {
        try (client;
                Socket node = new Socket(target.getAddress(), target.getPort())) {
            open.add(node);
            InputStream fromClient = client.getInputStream();
            OutputStream toClient = client.getOutputStream();
            InputStream fromNode = node.getInputStream();
            OutputStream toNode = node.getOutputStream();
            while (true) {
                Message request = Message.read(fromClient);
                if (request == null) {
                    return;
                }
                toNode.write(request.bytes);
                toNode.flush();
                Message response = Message.read(fromNode);
                if (response == null) {
                    return;
                }
                Predicate<String> drop = dropNext.get();
                if (drop != null && drop.test(request.startLine) && dropNext.compareAndSet(drop, null)) {
                    dropped.incrementAndGet();
                    return; // the node answered; the client never hears it
                }
                toClient.write(response.bytes);
                toClient.flush();
            }
        } catch (IOException e) {
            // a connection closed: the other side sees it closed too
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        pool.shutdownNow();
    }

    /** An HTTP/1.1 message, framed by its {@code Content-Length} or its chunks: its first line and all its bytes. */
    private record Message(String startLine, byte[] bytes) {
        static Message read(InputStream in) throws IOException {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            String head = readUntilBlankLine(in, all);
            if (head == null) {
                return null;
            }
            int length = 0;
            boolean chunked = false;
            for (String line : head.split("\r\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Integer.parseInt(
                            line.substring("content-length:".length()).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (chunked) {
                while (true) {
                    String sizeLine = readLine(in, all);
                    int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                    if (size == 0) {
                        readUntilBlankLine(in, all); // trailers, if any, and the last CRLF
                        break;
                    }
                    all.write(in.readNBytes(size));
                    readLine(in, all); // the CRLF after the chunk
                }
            } else {
                all.write(in.readNBytes(length));
            }
            return new Message(head.substring(0, head.indexOf("\r\n")), all.toByteArray());
        }

        /** Reads lines up to an empty one, copying them to {@code all}; null at the end of the stream. */
        private static String readUntilBlankLine(InputStream in, ByteArrayOutputStream all) throws IOException {
            StringBuilder text = new StringBuilder();
            while (true) {
                String line = readLine(in, all);
                if (line == null) {
                    return text.length() == 0 ? null : text.toString();
                }
                if (line.isEmpty()) {
                    return text.toString();
                }
                text.append(line).append("\r\n");
            }
        }

        /** One line without its CRLF, copied with it to {@code all}; null at the end of the stream. */
        private static String readLine(InputStream in, ByteArrayOutputStream all) throws IOException {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            int previous = -1;
            while (true) {
                int b = in.read();
                if (b < 0) {
                    if (line.size() == 0) {
                        return null;
                    }
                    throw new IOException("message cut off");
                }
                all.write(b);
                if (previous == '\r' && b == '\n') {
                    byte[] bytes = line.toByteArray();
                    return new String(bytes, 0, bytes.length - 1, StandardCharsets.ISO_8859_1);
                }
                line.write(b);
                previous = b;
            }
        }
    }
}
