package io.github.esrel.internal;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;

/**
 * The threads on which nothing may block, for the non-blocking ITs: the I/O threads of clients a test builds with
 * {@link #factory}. BlockHound (Reactor's blocking-call detector) is installed once per JVM and checks only these
 * threads, so the other ITs sharing the JVM and its nodes run as before: a blocking call on one of them (a sleep, a
 * lock that parks, a socket or file read or write) throws {@code BlockingOperationError} there.
 */
public final class NonBlockingThreads {

    /** The prefix of every thread BlockHound checks. */
    public static final String PREFIX = "esrel-nonblocking-";

    private static final AtomicInteger THREADS = new AtomicInteger();

    private NonBlockingThreads() {}

    /**
     * The blocking calls BlockHound saw, with where they were made: a call it throws on lands in the low-level client's
     * I/O thread, which may swallow it, so each is kept here for the test to fail on ({@link #seen}).
     */
    private static final List<BlockingOperationError> SEEN = new CopyOnWriteArrayList<>();

    /**
     * The connection pools of Apache HttpAsyncClient 4 and 5: a caller leasing a connection and an I/O thread
     * releasing one take the pool's lock for a few field updates, and the one that comes second parks until the other
     * is done. Allowed, as BlockHound's integrations allow such locks of their own libraries: a wait bounded by a few
     * instructions of another thread is not a blocking call.
     */
    private static final List<String> CONNECTION_POOLS = List.of(
            "org.apache.hc.core5.pool.StrictConnPool",
            "org.apache.hc.core5.pool.LaxConnPool",
            "org.apache.http.nio.pool.AbstractNIOConnPool");

    /** Installs BlockHound for the threads of {@link #factory}; once per JVM, later calls do nothing. */
    public static synchronized void install() {
        BlockHound.Builder builder = BlockHound.builder()
                .nonBlockingThreadPredicate(p -> p.or(t -> t.getName().startsWith(PREFIX)))
                .blockingMethodCallback(method -> {
                    BlockingOperationError e = new BlockingOperationError(method);
                    SEEN.add(e);
                    throw e;
                })
                // An idle worker of the HTTP client's executor waits for work there: not a call that blocks anyone.
                .allowBlockingCallsInside(ThreadPoolExecutor.class.getName(), "getTask")
                // Jackson builds a type's deserializer once, under a lock the first threads to ask for it share.
                .allowBlockingCallsInside(
                        "com.fasterxml.jackson.databind.deser.DeserializerCache", "_createAndCacheValueDeserializer");
        for (String pool : CONNECTION_POOLS) {
            try {
                for (Method m : Class.forName(pool).getDeclaredMethods()) {
                    builder.allowBlockingCallsInside(pool, m.getName());
                }
            } catch (ClassNotFoundException notOnThisLine) {
                // HttpAsyncClient 5 comes with elasticsearch-java 9 only
            }
        }
        builder.install();
    }

    /**
     * Makes the threads of a low-level client (Apache HttpAsyncClient 4 under {@code RestClient}, 5 under {@code
     * Rest5Client}); its I/O dispatchers, which complete every request and so run the stages chained on it, are the
     * threads BlockHound checks. Its other threads may wait by design (the reactor's main thread waits for its
     * dispatchers to stop) and are named otherwise.
     */
    public static ThreadFactory factory() {
        return r -> {
            String task = r.getClass().getName();
            boolean dispatcher = task.endsWith("IOReactorWorker") // HttpCore 5
                    || task.endsWith("AbstractMultiworkerIOReactor$Worker"); // HttpCore 4
            Thread t = new Thread(r, (dispatcher ? PREFIX : "esrel-io-") + THREADS.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /** The blocking calls seen since the last call, which forgets them. */
    public static List<BlockingOperationError> seen() {
        List<BlockingOperationError> seen = List.copyOf(SEEN);
        SEEN.removeAll(seen);
        return seen;
    }

    /** True on a thread BlockHound checks. */
    public static boolean current() {
        return Thread.currentThread().getName().startsWith(PREFIX);
    }
}
