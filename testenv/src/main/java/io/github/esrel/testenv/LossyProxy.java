package io.github.esrel.testenv;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A TCP proxy on the loopback interface in front of one node's HTTP port that loses requests or answers, for tests of
 * what a client does when it cannot know whether the node applied a request.
 *
 * <p>Two faults, each for a share of the requests that match a filter:
 * <ul>
 *   <li><b>Answer lost</b> ({@link #dropAnswers}): the request is forwarded whole, the node executes it and answers,
 *       and the proxy closes the client's connection when the answer's first bytes arrive. The client sees a
 *       connection closed after sending, as when a load balancer times out or a link fails mid-request: the node did
 *       the work, the client never hears of it.</li>
 *   <li><b>Request lost</b> ({@link #dropRequests}): the request is read and the connection closed before anything
 *       reaches the node. The client sees the same failure, but nothing was applied.</li>
 *   <li><b>Request replayed</b> ({@link #replayRequests}, {@link #replayNextRequest}): the request is forwarded, the
 *       node executes it and answers, and the proxy sends it again and passes the second answer on: what a proxy that
 *       resends a request whose answer it lost does, or Elasticsearch when it runs a write again on a new primary. The
 *       client sees only the copy's answer (a conflict with the write itself, for a conditional write).</li>
 * </ul>
 * A client of several hosts whose first host is this proxy shows what the low-level clients do with such a failure:
 * they send the same request again to the next host.
 *
 * <pre>{@code
 * try (LossyProxy proxy = LossyProxy.to(cluster.httpUri())) {
 *   proxy.dropAnswers(0.1, LossyProxy.WRITES);       // 10 % of the answers to writes are lost
 *   RestClient twoHosts = RestClient.builder(HttpHost.create(proxy.uri().toString()),
 *       HttpHost.create(cluster.httpUri().toString())).build();
 *   ...
 *   proxy.answersDropped();                           // how many were lost
 * }
 * }</pre>
 *
 * <p>Messages are framed as HTTP/1.1 frames them ({@code Content-Length} or chunks; no body after a {@code HEAD}, a
 * 1xx, 204 or 304); each client connection gets its own connection to the node. Plain HTTP only. Decisions are drawn
 * from a seeded random, so a run can be repeated ({@link #seed}). Thread-safe; {@link #close()} closes every socket
 * it opened.
 */
public final class LossyProxy implements AutoCloseable {

    /** Requests that may change something: every method but {@code GET} and {@code HEAD}, searches excepted. */
    public static final Predicate<String> WRITES = line -> {
        String lower = line.toLowerCase(Locale.ROOT);
        return !lower.startsWith("get ")
                && !lower.startsWith("head ")
                && !lower.contains("/_search")
                && !lower.contains("/_msearch")
                && !lower.contains("/_mget")
                && !lower.contains("/_count")
                && !lower.contains("/_pit")
                && !lower.contains("/_refresh");
    };

    /** Every request. */
    public static final Predicate<String> ALL = line -> true;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "esrel-lossy-proxy");
        t.setDaemon(true);
        return t;
    });
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicReference<Rule> rule = new AtomicReference<>(Rule.NONE);
    private final AtomicReference<Predicate<String>> answerToNext = new AtomicReference<>();
    private final AtomicReference<Predicate<String>> replayNext = new AtomicReference<>();
    private final Object randomLock = new Object();
    private Random random;
    private long seed;

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong answersDropped = new AtomicLong();
    private final AtomicLong requestsDropped = new AtomicLong();
    private final AtomicLong requestsReplayed = new AtomicLong();

    private LossyProxy(InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        seed(System.nanoTime());
        pool.execute(this::accept);
    }

    /**
     * A proxy to the node at {@code node} (an HTTP address such as {@link EsCluster#httpUri()}) that loses nothing until
     * told to.
     *
     * @param node the node's HTTP address; its scheme must be {@code http}
     * @return the running proxy
     * @throws IOException if no loopback port can be bound
     * @throws IllegalArgumentException if {@code node} is not a plain HTTP address with a host and port
     */
    public static LossyProxy to(URI node) throws IOException {
        Objects.requireNonNull(node, "node cannot be null");
        if (!"http".equalsIgnoreCase(node.getScheme()) || node.getHost() == null || node.getPort() < 0) {
            throw new IllegalArgumentException("node must be an http://host:port address, got [" + node + "]");
        }
        return new LossyProxy(new InetSocketAddress(node.getHost(), node.getPort()));
    }

    /**
     * The address clients connect to.
     *
     * @return {@code http://127.0.0.1:port}
     */
    public URI uri() {
        return URI.create("http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
    }

    /**
     * The port clients connect to.
     *
     * @return the loopback port
     */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Seeds the random that decides which requests lose their answer or are lost, so that a run can be repeated.
     *
     * @param seed the seed
     * @return this proxy
     */
    public LossyProxy seed(long seed) {
        synchronized (randomLock) {
            this.seed = seed;
            this.random = new Random(seed);
        }
        return this;
    }

    /**
     * The seed of the current random.
     *
     * @return the seed set by {@link #seed(long)}, else the one drawn at start
     */
    public long seed() {
        synchronized (randomLock) {
            return seed;
        }
    }

    /**
     * Loses the answer to a share of the requests whose request line ({@code PUT /i/_doc/1?if_seq_no=3 HTTP/1.1})
     * matches, after the node executed them. Replaces an earlier rule.
     *
     * @param share from 0 (none) to 1 (every matching request)
     * @param requestLine which requests may lose their answer, such as {@link #WRITES}
     * @return this proxy
     * @throws IllegalArgumentException if {@code share} is not within [0, 1]
     */
    public LossyProxy dropAnswers(double share, Predicate<String> requestLine) {
        rule.set(new Rule(check(share), 0, 0, Objects.requireNonNull(requestLine, "requestLine cannot be null")));
        return this;
    }

    /**
     * Loses a share of the requests whose request line matches before they reach the node (the client sees the
     * connection closed; nothing was applied). Replaces an earlier rule.
     *
     * @param share from 0 (none) to 1 (every matching request)
     * @param requestLine which requests may be lost, such as {@link #WRITES}
     * @return this proxy
     * @throws IllegalArgumentException if {@code share} is not within [0, 1]
     */
    public LossyProxy dropRequests(double share, Predicate<String> requestLine) {
        rule.set(new Rule(0, check(share), 0, Objects.requireNonNull(requestLine, "requestLine cannot be null")));
        return this;
    }

    /**
     * Sends a share of the requests whose request line matches to the node twice, passing on the second answer only.
     * Replaces an earlier rule.
     *
     * @param share from 0 (none) to 1 (every matching request)
     * @param requestLine which requests are replayed
     * @return this proxy
     * @throws IllegalArgumentException if {@code share} is not within [0, 1]
     */
    public LossyProxy replayRequests(double share, Predicate<String> requestLine) {
        rule.set(new Rule(0, 0, check(share), Objects.requireNonNull(requestLine, "requestLine cannot be null")));
        return this;
    }

    /**
     * Sends the next request whose request line matches to the node twice, passing on the second answer only; once,
     * besides the rule in force.
     *
     * @param requestLine the request to replay
     * @return this proxy
     */
    public LossyProxy replayNextRequest(Predicate<String> requestLine) {
        replayNext.set(Objects.requireNonNull(requestLine, "requestLine cannot be null"));
        return this;
    }

    /**
     * Loses the answer to the next request whose request line matches, once, besides the rule in force.
     *
     * @param requestLine the request to lose the answer of
     * @return this proxy
     */
    public LossyProxy dropAnswerToNext(Predicate<String> requestLine) {
        answerToNext.set(Objects.requireNonNull(requestLine, "requestLine cannot be null"));
        return this;
    }

    /**
     * Stops losing anything (the counters stay).
     *
     * @return this proxy
     */
    public LossyProxy heal() {
        rule.set(Rule.NONE);
        answerToNext.set(null);
        replayNext.set(null);
        return this;
    }

    /**
     * Requests read from clients so far.
     *
     * @return the count
     */
    public long requests() {
        return requests.get();
    }

    /**
     * Answers lost so far (the node executed those requests).
     *
     * @return the count
     */
    public long answersDropped() {
        return answersDropped.get();
    }

    /**
     * Requests lost so far before reaching the node.
     *
     * @return the count
     */
    public long requestsDropped() {
        return requestsDropped.get();
    }

    /**
     * Requests sent to the node twice so far.
     *
     * @return the count
     */
    public long requestsReplayed() {
        return requestsReplayed.get();
    }

    private static double check(double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("share must be within [0, 1], got " + share);
        }
        return share;
    }

    private boolean draw(double share) {
        if (share <= 0) {
            return false;
        }
        synchronized (randomLock) {
            return random.nextDouble() < share;
        }
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
        Socket node = null;
        try (client) {
            client.setTcpNoDelay(true);
            InputStream fromClient = new BufferedInputStream(client.getInputStream());
            OutputStream toClient = client.getOutputStream();
            InputStream fromNode = null;
            while (true) {
                Message request = Message.read(fromClient, false);
                if (request == null) {
                    return;
                }
                requests.incrementAndGet();
                Rule now = Objects.requireNonNull(rule.get()); // never set to null
                boolean matches = now.requestLine.test(request.startLine);
                if (matches && draw(now.requestShare)) {
                    requestsDropped.incrementAndGet();
                    return; // nothing reaches the node
                }
                if (node == null) {
                    node = new Socket(target.getAddress(), target.getPort());
                    node.setTcpNoDelay(true);
                    open.add(node);
                    fromNode = new BufferedInputStream(node.getInputStream());
                }
                node.getOutputStream().write(request.bytes);
                node.getOutputStream().flush();
                boolean head = request.startLine.regionMatches(true, 0, "HEAD ", 0, 5);
                // Opened with the node connection above.
                Message answer = Message.read(Objects.requireNonNull(fromNode), head);
                if (answer == null) {
                    return;
                }
                Predicate<String> replayOnce = replayNext.get();
                boolean replay = replayOnce != null
                                && replayOnce.test(request.startLine)
                                && replayNext.compareAndSet(replayOnce, null)
                        || matches && draw(now.replayShare);
                if (replay) {
                    requestsReplayed.incrementAndGet();
                    node.getOutputStream().write(request.bytes);
                    node.getOutputStream().flush();
                    answer = Message.read(Objects.requireNonNull(fromNode), head);
                    if (answer == null) {
                        return;
                    }
                }
                Predicate<String> once = answerToNext.get();
                boolean dropOnce =
                        once != null && once.test(request.startLine) && answerToNext.compareAndSet(once, null);
                if (dropOnce || matches && draw(now.answerShare)) {
                    answersDropped.incrementAndGet();
                    return; // the node answered; the client never hears it
                }
                toClient.write(answer.bytes);
                toClient.flush();
            }
        } catch (IOException e) {
            // a connection closed: the other side sees it closed too
        } finally {
            closeQuietly(node);
            open.remove(client);
            if (node != null) {
                open.remove(node);
            }
        }
    }

    private static void closeQuietly(@Nullable Socket s) {
        if (s != null) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
        pool.shutdownNow();
    }

    @Override
    public String toString() {
        return "LossyProxy{" + uri() + " -> " + target + ", requests=" + requests + ", answersDropped=" + answersDropped
                + ", requestsDropped=" + requestsDropped + ", seed=" + seed() + '}';
    }

    private record Rule(double answerShare, double requestShare, double replayShare, Predicate<String> requestLine) {
        static final Rule NONE = new Rule(0, 0, 0, line -> false);
    }

    /** An HTTP/1.1 message, framed by its {@code Content-Length} or its chunks: its first line and all its bytes. */
    private record Message(String startLine, byte[] bytes) {

        /** The next message, or {@code null} at the end of the stream; {@code noBody}: the answer to a HEAD. */
        static @Nullable Message read(InputStream in, boolean noBody) throws IOException {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            String head = readUntilBlankLine(in, all);
            if (head == null) {
                return null;
            }
            String startLine = head.substring(0, head.indexOf("\r\n"));
            if (startLine.startsWith("HTTP/")) {
                int status = Integer.parseInt(startLine.split(" ")[1]);
                if (status / 100 == 1) {
                    // An interim answer (100 Continue): passed on with the final one that follows.
                    Message last = read(in, noBody);
                    if (last == null) {
                        return null;
                    }
                    all.write(last.bytes);
                    return new Message(last.startLine, all.toByteArray());
                }
                noBody |= status == 204 || status == 304;
            }
            long length = 0;
            boolean chunked = false;
            for (String line : head.split("\r\n")) {
                String lower = line.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(
                            line.substring("content-length:".length()).trim());
                } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                    chunked = true;
                }
            }
            if (noBody) {
                return new Message(startLine, all.toByteArray());
            }
            if (chunked) {
                while (true) {
                    String sizeLine = readLine(in, all);
                    if (sizeLine == null) {
                        throw new IOException("message cut off");
                    }
                    int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                    if (size == 0) {
                        readUntilBlankLine(in, all); // trailers, if any, and the last CRLF
                        break;
                    }
                    copy(in, all, size);
                    readLine(in, all); // the CRLF after the chunk
                }
            } else {
                copy(in, all, length);
            }
            return new Message(startLine, all.toByteArray());
        }

        private static void copy(InputStream in, ByteArrayOutputStream all, long n) throws IOException {
            byte[] buffer = new byte[8192];
            while (n > 0) {
                int read = in.read(buffer, 0, (int) Math.min(buffer.length, n));
                if (read < 0) {
                    throw new IOException("message cut off");
                }
                all.write(buffer, 0, read);
                n -= read;
            }
        }

        /** Reads lines up to an empty one, copying them to {@code all}; null at the end of the stream. */
        private static @Nullable String readUntilBlankLine(InputStream in, ByteArrayOutputStream all)
                throws IOException {
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
        private static @Nullable String readLine(InputStream in, ByteArrayOutputStream all) throws IOException {
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
