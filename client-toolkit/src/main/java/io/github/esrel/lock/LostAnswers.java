package io.github.esrel.lock;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.transport.TransportException;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Sleeper;
import java.io.IOException;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Lock requests whose answer was lost, sent again as they were. A request whose answer is lost (the connection
 * closed or timed out after it was sent, a gateway answered 502 or 504, or the node answered a copy of it that had
 * lost its body on the way) may have been applied: the node did the
 * work, the client never heard of it. Every lock request is made safe to send again by its identity (the grant id
 * of the plugin's acquire and release, the grant of a lock document's holder, the token of a renewal), so the same
 * request is sent again, a few times, and its answer tells what the first copy did.
 *
 * <p>The low-level clients send a request whose answer was lost to the next host by themselves, once per host; a
 * client that does not (one host, or one that refuses to resend writes) gets the I/O failure, which is resent here.
 */
final class LostAnswers {

    /** Sends of one request at most: the first and four more. */
    static final int MAX_SENDS = 5;

    /** The pause before each resend: 50 ms, doubling; 750 ms in all before the fifth send. */
    static final Backoff PAUSES = Backoff.exponential(Duration.ofMillis(50), 2.0, Duration.ofMillis(800));

    private final Sleeper sleeper;

    LostAnswers(Sleeper sleeper) {
        this.sleeper = sleeper;
    }

    /** A request and how often it was sent: more than once means an earlier copy may have been applied. */
    record Sent<T>(T answer, int sends) {
        boolean resent() {
            return sends > 1;
        }
    }

    /**
     * Whether {@code e} leaves the outcome of the request unknown: no answer (an I/O failure, the connection closed
     * after the request was sent), or a gateway's 502 or 504 (the node may have done the work).
     */
    static boolean isLost(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof TransportException te && te.statusCode() > 0) {
                // An answer the client could not read: its status says whether the node did the work.
                return te.statusCode() == 502 || te.statusCode() == 504;
            }
            if (t instanceof IOException) {
                return true;
            }
            if (t instanceof ElasticsearchException ee) {
                return ee.status() == 502 || ee.status() == 504 || bodyLostOnTheWay(ee);
            }
        }
        return false;
    }

    /** {@link #send(Supplier, long)} without a deadline: {@link #MAX_SENDS} sends at most. */
    <T> Sent<T> send(Supplier<T> request) {
        return send(request, System.nanoTime() + Duration.ofMinutes(1).toNanos());
    }

    /**
     * Whether the node answered a request that reached it without its body: every lock request has one, so the
     * copy the node saw was not the request as sent. Measured with {@code Rest5Client} (elasticsearch-java 9.x): a
     * request whose answer was lost is sent again to the next host without its body (the node answers 400 "request
     * body is required"), so what the first copy did is still unknown.
     */
    static boolean bodyLostOnTheWay(ElasticsearchException e) {
        return e.status() == 400
                && e.error() != null
                && e.error().reason() != null
                && e.error().reason().startsWith("request body is required");
    }

    /**
     * Sends {@code request} until it is answered: at most {@link #MAX_SENDS} times, and not again once
     * {@code deadlineNanos} ({@link System#nanoTime()}) has passed.
     *
     * @param request sends the request once; a lost answer is a {@link TreeLockException} that {@link #isLost}
     * @return the answer, with how often it was sent
     * @throws TreeLockException the last lost answer once the sends ran out (saying how many there were), or any
     *     other failure at once; interrupted while pausing, the last lost answer with the interrupt flag set again
     */
    <T> Sent<T> send(Supplier<T> request, long deadlineNanos) {
        for (int sends = 1; ; sends++) {
            try {
                return new Sent<>(request.get(), sends);
            } catch (TreeLockException e) {
                if (!isLost(e)) {
                    throw e;
                }
                if (sends >= MAX_SENDS || System.nanoTime() - deadlineNanos >= 0) {
                    throw new TreeLockException(
                            e.getMessage() + " (no answer to " + sends + (sends == 1 ? " send" : " sends")
                                    + " of the request)",
                            e.status(),
                            e);
                }
                try {
                    sleeper.sleep(PAUSES.delay(sends));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    e.addSuppressed(ie);
                    throw e;
                }
            }
        }
    }
}
