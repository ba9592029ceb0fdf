package io.github.esrel.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Set;
import javax.net.ssl.SSLHandshakeException;
import org.jspecify.annotations.Nullable;

/**
 * The copies of one request that the low-level client sends, and whether it may send another: the rule of
 * {@link ResendGuard}, apart from the HTTP client that reports each copy's fate.
 *
 * <p>The low-level clients ({@code RestClient}, {@code Rest5Client}) send a request whose copy failed again to the
 * next host, and elasticsearch-java's own retries ({@code RetryConfig}) send it again too. For a request that changes
 * something, another copy is safe only when no earlier copy can have been executed:
 * <ul>
 *   <li>it never reached a node: the connection could not be made (refused, no route, unknown host, connect or
 *       connection-pool timeout, TLS handshake failed), the request not yet written;</li>
 *   <li>Elasticsearch refused it before executing anything: a 429 (a full queue), or a 502, 503 or 504 whose
 *       Elasticsearch error says so (no active primary within the timeout, a block, a rejection: the types
 *       {@link Reasons#mayHaveApplied} counts as refusals).</li>
 * </ul>
 * Any other fate (the connection closed or timed out after the request was written, a 5xx from a proxy or one that
 * does not say the request was refused, no report at all) may hide an executed copy: another copy is refused
 * ({@link ResendRefusedException}), and the request ends as if the client had one host, with its answer lost.
 *
 * <p>Thread-safe: the HTTP client reports from its I/O threads, the next copy starts on the caller's or on an I/O
 * thread.
 */
final class SendAttempts {

    /** Error types Elasticsearch answers before it executes a write (as {@link Reasons#mayHaveApplied}). */
    private static final Set<String> REFUSALS = Set.of(
            "unavailable_shards_exception",
            "no_shard_available_action_exception",
            "cluster_block_exception",
            "es_rejected_execution_exception");

    /** The most of an error body kept to read its error types: Elasticsearch's are a few hundred bytes. */
    private static final int MAX_BODY = 16 * 1024;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What became of one copy. */
    enum Fate {
        /** Sent; no report yet (or none will come). */
        SENT,
        /** Never reached a node. */
        NOT_CONNECTED,
        /** Answered: see the status. */
        ANSWERED,
        /** Failed after the connection was made: it may have been executed. */
        LOST
    }

    private int copies;
    private @Nullable Fate fate;
    private int status;
    private @Nullable Throwable failure;
    private @Nullable ByteArrayOutputStream body;

    /**
     * A copy is about to be sent.
     *
     * @throws ResendRefusedException if an earlier copy may have been executed
     */
    synchronized void next() {
        if (copies > 0 && !resendable()) {
            throw new ResendRefusedException(copies, describeLast(), failure);
        }
        copies++;
        fate = Fate.SENT;
        status = 0;
        failure = null;
        body = null;
    }

    /** The current copy was answered with {@code status}; a body follows for a server error. */
    synchronized void answered(int status) {
        this.fate = Fate.ANSWERED;
        this.status = status;
        this.body = status >= 500 ? new ByteArrayOutputStream() : null;
    }

    /** Bytes of the current copy's answer (kept for a server error, up to {@value #MAX_BODY}). */
    synchronized void body(ByteBuffer bytes) {
        if (body != null && body.size() < MAX_BODY) {
            ByteBuffer view = bytes.duplicate();
            byte[] chunk = new byte[Math.min(view.remaining(), MAX_BODY - body.size())];
            view.get(chunk);
            body.write(chunk, 0, chunk.length);
        }
    }

    /** Bytes of the current copy's answer, from an array. */
    synchronized void body(byte[] bytes, int offset, int length) {
        body(ByteBuffer.wrap(bytes, offset, length));
    }

    /** The current copy failed with {@code e}. A failure after an answer (reading its body) leaves the answer. */
    synchronized void failed(Throwable e) {
        if (fate == Fate.ANSWERED) {
            return;
        }
        this.failure = e;
        this.fate = beforeConnecting(e) ? Fate.NOT_CONNECTED : Fate.LOST;
    }

    /** Copies sent so far. */
    synchronized int copies() {
        return copies;
    }

    private boolean resendable() {
        return switch (Objects.requireNonNull(fate, "no copy sent yet")) {
            case NOT_CONNECTED -> true;
            case ANSWERED -> status == 429 || refusedByElasticsearch();
            case SENT, LOST -> false;
        };
    }

    /** Whether the server error kept says Elasticsearch refused the request before executing it. */
    private boolean refusedByElasticsearch() {
        if (body == null || body.size() == 0) {
            return false;
        }
        try {
            JsonNode error = JSON.readTree(body.toByteArray()).path("error");
            if (!error.isObject()) {
                return false;
            }
            for (JsonNode e = error; e.isObject(); e = e.path("caused_by")) {
                if (REFUSALS.contains(e.path("type").asText())) {
                    return true;
                }
            }
            for (JsonNode root : error.path("root_cause")) {
                if (REFUSALS.contains(root.path("type").asText())) {
                    return true;
                }
            }
            return false;
        } catch (java.io.IOException | RuntimeException notElasticsearch) {
            return false; // a proxy's page, or cut off: nothing says it was refused
        }
    }

    private String describeLast() {
        return switch (Objects.requireNonNull(fate, "no copy sent yet")) {
            case SENT -> "was sent and never reported back";
            case NOT_CONNECTED -> "could not connect";
            case ANSWERED ->
                "was answered with status " + status
                        + (body == null || body.size() == 0
                                ? ""
                                : " ["
                                        + new String(
                                                body.toByteArray(),
                                                0,
                                                Math.min(body.size(), 300),
                                                StandardCharsets.UTF_8)
                                        + "]");
            case LOST -> "failed after it was sent (" + failure + ")";
        };
    }

    /** Whether {@code e} (or a cause) is a failure to connect: the request was not written. */
    static boolean beforeConnecting(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof ConnectException // refused (and the HTTP clients' HttpHostConnectException)
                    || t instanceof NoRouteToHostException
                    || t instanceof UnknownHostException
                    || t instanceof SSLHandshakeException) {
                return true;
            }
            // Both HTTP client lines name them so: org.apache.http.conn / org.apache.hc.client5.http.
            String name = t.getClass().getSimpleName();
            if (name.equals("ConnectTimeoutException") || name.equals("ConnectionRequestTimeoutException")) {
                return true;
            }
        }
        return false;
    }
}
