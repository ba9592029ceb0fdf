package io.github.esrel.internal.bulk;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import io.github.esrel.internal.Checks;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Attempts;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The one engine for bulks of conditional writes (on {@code _seq_no}/{@code _primary_term} or an external
 * version), in the style of elasticsearch-java's {@code BulkIngester}: configured by a builder, fed items,
 * reporting through one {@link Listener}. Each round sends the items due, in requests of at most
 * {@link Builder#batchSize} items, and classifies every answer:
 * <ul>
 *   <li>written: done;</li>
 *   <li>409, a version conflict: with a {@link Decider}, the item is re-read and decided again in the next
 *       round (the decider may also finish it: up to date, gone); without one, the conflict is the item's
 *       final outcome (a newer view won, a newer lock holder fenced the write);</li>
 *   <li>429, a rejection (a full write queue, a circuit breaker), for the item or the whole request: the
 *       same write is sent again in the next round;</li>
 *   <li>401 or 403 with {@link Builder#abortOnDenied}: not the item's problem but the credentials'; the
 *       whole write fails once the answer is classified;</li>
 *   <li>an index block ({@code cluster_block_exception}) with {@link Builder#abortOnBlock}: not the item's
 *       problem but the index's; the whole write fails, at once for a 403 block (read-only, write), after
 *       the retry policy for a 429 one (the flood-stage {@code read_only_allow_delete}, which Elasticsearch
 *       lifts by itself once disk space is freed);</li>
 *   <li>a request that was sent and met a connection failure or a server error that does not say it was refused,
 *       for the whole request or an item: its answer is lost, and {@link Builder#lostAnswers} says what follows
 *       (see {@link LostAnswers});</li>
 *   <li>anything else: the item failed.</li>
 * </ul>
 * Conflicts and rejections are retried per item under the {@link RetryPolicy}; past it the item has given
 * up. Before a next round the engine waits the longest backoff its retried items asked for, with the
 * policy's sleeper. A round that fails as a whole (not 429) throws, and so does the decider.
 *
 * <p>{@link #write} runs on the caller's thread; {@link #submit} runs writes on a pool of at most
 * {@link Builder#maxInFlight} at once. Items are the caller's objects, compared by identity.
 *
 * @param <I> the caller's item type
 */
public final class ConditionalWrites<I> implements AutoCloseable {

    /**
     * What becomes of an item whose write was sent and whose answer was lost: a connection failure, or a server error
     * (for the request or the item) that does not say the write was refused (see {@link Reasons#mayHaveApplied}).
     */
    public enum LostAnswers {
        /** The write throws what the request met; an item's error fails the item. */
        FAIL,
        /**
         * The item's outcome is unknown ({@link Listener#onUnknown}), and it is not sent again (that could apply it
         * twice); the other items go on.
         */
        UNKNOWN,
        /**
         * The item goes back to the {@link Decider} ({@link Listener#onLost}), which reads the document and finds out
         * what became of the write (a decider that can tell its writes in the document: {@code BulkUpdate}'s); it
         * counts as a conflict under the retry policy, past which the item is unknown, as with {@link #UNKNOWN}.
         */
        RECHECK
    }

    /**
     * Decides items whose write conflicted (or whose first decision is due) again: one read for all of
     * them, then for each a new conditional write ({@link Decisions#write}), a read to repeat after a backoff
     * ({@link Decisions#readAgain}), or nothing when the caller has finished the item itself.
     *
     * @param <I> the caller's item type
     */
    @FunctionalInterface
    public interface Decider<I> {
        /**
         * Reads and decides the items.
         *
         * @param items the items to decide, in order
         * @param out where each item that still needs a write goes
         * @throws IOException if the read fails as a whole
         */
        void decide(List<I> items, Decisions<I> out) throws IOException;
    }

    /**
     * What a {@link Decider} decided.
     *
     * @param <I> the caller's item type
     */
    public interface Decisions<I> {
        /**
         * The item is to be written (again), with the conditions of the read just made.
         *
         * @param item the item
         */
        void write(I item);

        /**
         * The read of the item was rejected (429): read and decide it again after a backoff.
         *
         * @param item the item
         * @param rejection the rejection, judged by the retry policy
         */
        void readAgain(I item, ElasticsearchException rejection);
    }

    /**
     * What happens to the items; every method has a default that does nothing. Called on the thread that
     * writes; with {@link #submit}, from several threads.
     *
     * @param <I> the caller's item type
     */
    public interface Listener<I> {
        /**
         * A round starts.
         *
         * @param round the round, from 1
         * @param items the items it sends or decides
         */
        default void beforeRound(int round, int items) {}

        /**
         * A bulk request is about to be sent.
         *
         * @param round the round
         * @param items the writes in it
         */
        default void beforeBulk(int round, int items) {}

        /**
         * An item was written.
         *
         * @param item the item
         * @param response its answer
         */
        default void onWritten(I item, BulkResponseItem response) {}

        /**
         * An item's write conflicted (409).
         *
         * @param item the item
         * @param attempt the attempt that conflicted, from 1
         * @param finalOutcome true when there is no {@link Decider}: the conflict is what happened to the item
         */
        default void onConflict(I item, int attempt, boolean finalOutcome) {}

        /**
         * Items of a round were rejected (429) and are sent again.
         *
         * @param items how many
         * @param wait the backoff before the next round
         */
        default void onRejected(int items, Duration wait) {}

        /**
         * An item's conflicts or rejections outlasted the retry policy.
         *
         * @param item the item
         * @param stop why the policy stopped
         * @param last the last failure, a conflict or a rejection
         */
        default void onGaveUp(I item, StopReason stop, ElasticsearchException last) {}

        /**
         * An item failed otherwise.
         *
         * @param item the item
         * @param failure the item's error
         */
        default void onFailed(I item, ElasticsearchException failure) {}

        /**
         * With {@link LostAnswers#UNKNOWN} or {@link LostAnswers#RECHECK}: the item's write was sent, and whether it
         * was applied is not known (a connection failure, a server error that does not say the write was refused). It
         * is not sent again.
         *
         * @param item the item
         * @param cause the request's or the item's failure
         */
        default void onUnknown(I item, Exception cause) {}

        /**
         * With {@link LostAnswers#RECHECK}: the item's write was sent and its fate is not known (as for
         * {@link #onUnknown}); the item goes back to the decider, which reads the document and finds out, within the
         * retry policy. Called before the decider sees it again.
         *
         * @param item the item
         * @param cause the request's or the item's failure
         */
        default void onLost(I item, Exception cause) {}

        /**
         * A round ended.
         *
         * @param round the round
         * @param retried the items due in the next round
         */
        default void afterRound(int round, int retried) {}

        /**
         * The thread was interrupted while waiting between rounds: these items were not written.
         *
         * @param pending the items left
         */
        default void onInterrupted(List<I> pending) {}

        /**
         * {@link Builder#stopWhen} said stop before a round: these items were not written.
         *
         * @param pending the items left
         */
        default void onStopped(List<I> pending) {}
    }

    /** Sends one bulk request; the client's, or a test's. */
    @FunctionalInterface
    interface Sender {
        BulkResponse send(List<BulkOperation> operations, @Nullable Refresh refresh) throws IOException;
    }

    /**
     * What a {@link #write} did, counted over its rounds.
     *
     * @param rounds the rounds run
     * @param written items written
     * @param conflicts conflicting writes (an item may conflict several times)
     * @param rejected rejected writes and reads
     * @param gaveUp items given up under the retry policy
     * @param failed items failed otherwise
     * @param unknown items whose write was sent and whose fate is not known (not with {@link LostAnswers#FAIL})
     * @param interrupted whether the thread was interrupted, leaving items unwritten
     * @param stopped whether {@link Builder#stopWhen} stopped the write, leaving items unwritten
     */
    public record Report(
            int rounds,
            long written,
            long conflicts,
            long rejected,
            long gaveUp,
            long failed,
            long unknown,
            boolean interrupted,
            boolean stopped) {

        /** A report of a write that reports no unknown outcomes (with {@link LostAnswers#FAIL}). */
        public Report(
                int rounds,
                long written,
                long conflicts,
                long rejected,
                long gaveUp,
                long failed,
                boolean interrupted,
                boolean stopped) {
            this(rounds, written, conflicts, rejected, gaveUp, failed, 0, interrupted, stopped);
        }
    }

    private final Function<I, BulkOperation> operation;
    private final @Nullable Decider<I> decider;
    private final Listener<I> listener;
    private final RetryPolicy policy;
    private final @Nullable Function<I, Attempts> attemptsOf;
    private final Sender sender;
    private final @Nullable Refresh refresh;
    private final int batchSize;
    private final boolean abortOnDenied;
    private final boolean abortOnBlock;
    private final LostAnswers lostAnswers;
    private final BooleanSupplier stopWhen;
    private final Semaphore permits;
    private final @Nullable ExecutorService pool;

    private ConditionalWrites(Builder<I> b) {
        this.operation = Objects.requireNonNull(b.operation, "operation cannot be null");
        this.decider = b.decider;
        this.listener = b.listener;
        this.policy = Objects.requireNonNull(b.policy, "retryPolicy cannot be null");
        this.attemptsOf = b.attemptsOf;
        ElasticsearchClient client = b.client;
        this.sender = b.sender != null
                ? b.sender
                : (ops, refresh) -> Objects.requireNonNull(client, "client cannot be null")
                        .bulk(r -> {
                            r.operations(ops);
                            if (refresh != null) {
                                r.refresh(refresh);
                            }
                            return r;
                        });
        this.refresh = b.refresh;
        this.batchSize = b.batchSize;
        this.abortOnDenied = b.abortOnDenied;
        this.abortOnBlock = b.abortOnBlock;
        this.lostAnswers = b.lostAnswers;
        if (lostAnswers == LostAnswers.RECHECK && decider == null) {
            throw new IllegalArgumentException("LostAnswers.RECHECK needs a decider");
        }
        this.stopWhen = b.stopWhen;
        this.permits = new Semaphore(b.maxInFlight);
        this.pool = b.maxInFlight == 1
                ? null
                : Executors.newFixedThreadPool(b.maxInFlight, r -> {
                    Thread t = new Thread(r, b.threadName);
                    t.setDaemon(true);
                    return t;
                });
    }

    /**
     * Starts the configuration of an engine.
     *
     * @param operation the conditional write of an item as currently decided
     * @param <I> the caller's item type
     * @return a builder
     */
    public static <I> Builder<I> builder(Function<I, BulkOperation> operation) {
        return new Builder<>(operation);
    }

    /**
     * Writes items already decided (each has its conditional write), round after round until every item is
     * written, finished by the decider, given up or failed.
     *
     * @param items the items, in order
     * @return the counts
     * @throws IOException if a round fails as a whole
     * @throws ElasticsearchException if a round fails as a whole (not 429), or an item was denied with
     *     {@link Builder#abortOnDenied} or refused by an index block with {@link Builder#abortOnBlock}
     */
    public Report write(List<I> items) throws IOException {
        return run(items, false);
    }

    /**
     * Decides the items with the {@link Decider} first, then as {@link #write}.
     *
     * @param items the items, in order
     * @return the counts
     * @throws IOException if a read or a round fails as a whole
     * @throws IllegalStateException if the engine has no decider
     */
    public Report decideAndWrite(List<I> items) throws IOException {
        if (decider == null) {
            throw new IllegalStateException("no decider to decide items with");
        }
        return run(items, true);
    }

    /**
     * {@link #write} on the engine's pool, waiting for a free slot when {@link Builder#maxInFlight} writes
     * are out; with a limit of 1, on the caller's thread before returning.
     *
     * @param items the items, in order
     * @return the outcome; completes exceptionally with what {@link #write} would throw
     * @throws InterruptedException if interrupted while waiting for a slot (nothing was sent)
     */
    public CompletableFuture<Report> submit(List<I> items) throws InterruptedException {
        if (pool == null) {
            try {
                return CompletableFuture.completedFuture(write(items));
            } catch (IOException | RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
        }
        permits.acquire();
        try {
            return CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            return write(items);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        } finally {
                            permits.release();
                        }
                    },
                    pool);
        } catch (RuntimeException e) {
            permits.release();
            throw e;
        }
    }

    /**
     * The failure of a {@link #submit}ted write, as {@link #write} would have thrown it.
     *
     * @param e what the future completed with
     * @return the cause: an {@link IOException} or a runtime exception
     */
    public static @Nullable Exception unwrap(Throwable e) {
        Throwable t = e instanceof CompletionException || e instanceof java.util.concurrent.ExecutionException
                ? e.getCause()
                : e;
        if (t instanceof UncheckedIOException u) {
            return u.getCause();
        }
        if (t instanceof Exception ex) {
            return ex;
        }
        if (t instanceof Error err) {
            throw err;
        }
        return new RuntimeException(t);
    }

    /** Stops the pool; writes in flight finish first. */
    @Override
    public void close() {
        if (pool != null) {
            pool.shutdown();
        }
    }

    private Report run(List<I> items, boolean undecided) throws IOException {
        Map<I, Attempts> attempts = new IdentityHashMap<>();
        Counts counts = new Counts();
        List<I> toWrite = undecided ? List.of() : items;
        List<I> toDecide = undecided ? items : List.of();
        int round = 0;
        while (!toWrite.isEmpty() || !toDecide.isEmpty()) {
            if (round > 0 && stopWhen.getAsBoolean()) {
                List<I> left = new ArrayList<>(toWrite);
                left.addAll(toDecide);
                safely(() -> listener.onStopped(left), "onStopped");
                return counts.report(round, false, true);
            }
            round++;
            int number = round;
            int due = toWrite.size() + toDecide.size();
            safely(() -> listener.beforeRound(number, due), "beforeRound");
            Next<I> next = new Next<>();
            List<I> decided = new ArrayList<>(toWrite);
            if (!toDecide.isEmpty()) {
                decide(toDecide, attempts, decided, next, counts);
                if (next.abort != null) {
                    throw next.abort;
                }
            }
            for (int from = 0; from < decided.size(); from += batchSize) {
                send(number, decided.subList(from, Math.min(from + batchSize, decided.size())), attempts, next, counts);
            }
            if (next.rejectedNow > 0) {
                int n = next.rejectedNow;
                Duration w = next.wait;
                safely(() -> listener.onRejected(n, w), "onRejected");
            }
            int retried = next.write.size() + next.decide.size();
            safely(() -> listener.afterRound(number, retried), "afterRound");
            toWrite = next.write;
            toDecide = next.decide;
            if (retried > 0 && !next.wait.isZero()) {
                try {
                    policy.sleeper().sleep(next.wait);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    List<I> left = new ArrayList<>(toWrite);
                    left.addAll(toDecide);
                    safely(() -> listener.onInterrupted(left), "onInterrupted");
                    return counts.report(round, true, false);
                }
            }
        }
        return counts.report(round, false, false);
    }

    private void decide(List<I> items, Map<I, Attempts> attempts, List<I> decided, Next<I> next, Counts counts)
            throws IOException {
        for (int from = 0; from < items.size(); from += batchSize) {
            // Only with a decider: decideAndWrite checked.
            Objects.requireNonNull(decider, "decider")
                    .decide(items.subList(from, Math.min(from + batchSize, items.size())), new Decisions<>() {
                        @Override
                        public void write(I item) {
                            decided.add(item);
                        }

                        @Override
                        public void readAgain(I item, ElasticsearchException rejection) {
                            counts.rejected++;
                            retryOrGiveUp(item, rejection, attempts, next, counts, true);
                        }
                    });
        }
    }

    private void send(int round, List<I> batch, Map<I, Attempts> attempts, Next<I> next, Counts counts)
            throws IOException {
        List<BulkOperation> ops = new ArrayList<>(batch.size());
        for (I item : batch) {
            ops.add(operation.apply(item));
        }
        safely(() -> listener.beforeBulk(round, batch.size()), "beforeBulk");
        BulkResponse response = null;
        ErrorCause whole = null;
        try {
            response = sender.send(ops, refresh);
        } catch (ElasticsearchException e) {
            if (lostAnswers != LostAnswers.FAIL && Reasons.mayHaveApplied(e)) {
                lost(batch, e, attempts, next, counts);
                return;
            }
            if (e.status() != Failures.TOO_MANY_REQUESTS) {
                throw e;
            }
            whole = e.error();
        } catch (IOException e) {
            if (lostAnswers != LostAnswers.FAIL) {
                lost(batch, e, attempts, next, counts);
                return;
            }
            throw e;
        }
        for (int i = 0; i < batch.size(); i++) {
            I item = batch.get(i);
            int status;
            ErrorCause error;
            if (response == null) {
                status = Failures.TOO_MANY_REQUESTS;
                error = whole;
            } else {
                BulkResponseItem r = response.items().get(i);
                if (r.error() == null) {
                    counts.written++;
                    safely(() -> listener.onWritten(item, r), "onWritten");
                    continue;
                }
                status = r.status();
                error = r.error();
            }
            ElasticsearchException failure = Failures.ofBulkItem(status, error);
            if (status == Failures.CONFLICT) {
                counts.conflicts++;
                int attempt = attemptsOf(item, attempts).attempt();
                safely(() -> listener.onConflict(item, attempt, decider == null), "onConflict");
                if (decider != null) {
                    retryOrGiveUp(item, failure, attempts, next, counts, true);
                }
            } else if (status == Failures.TOO_MANY_REQUESTS) {
                counts.rejected++;
                next.rejectedNow++;
                retryOrGiveUp(item, failure, attempts, next, counts, false);
            } else if (abortOnDenied && (status == 401 || status == 403) || abortOnBlock && isBlock(failure)) {
                next.abort(failure);
            } else if (lostAnswers != LostAnswers.FAIL && Reasons.mayHaveApplied(failure)) {
                lost(List.of(item), failure, attempts, next, counts);
            } else {
                counts.failed++;
                safely(() -> listener.onFailed(item, failure), "onFailed");
            }
        }
        // Thrown only now, so that the items of the same answer that were written are reported as such.
        if (next.abort != null) {
            throw next.abort;
        }
    }

    /**
     * Items whose write was sent and whose fate is not known: back to the decider, which finds out, with
     * {@link LostAnswers#RECHECK} and while the policy allows another attempt; else unknown.
     */
    private void lost(List<I> items, Exception cause, Map<I, Attempts> attempts, Next<I> next, Counts counts) {
        if (lostAnswers != LostAnswers.RECHECK) {
            unknown(items, cause, counts);
            return;
        }
        for (I item : items) {
            safely(() -> listener.onLost(item, cause), "onLost");
            Optional<Duration> delay = attemptsOf(item, attempts).onFailure(LOST);
            if (delay.isPresent()) {
                next.decide.add(item);
                if (delay.get().compareTo(next.wait) > 0) {
                    next.wait = delay.get();
                }
            } else {
                unknown(List.of(item), cause, counts);
            }
        }
    }

    private void unknown(List<I> items, Exception cause, Counts counts) {
        for (I item : items) {
            counts.unknown++;
            safely(() -> listener.onUnknown(item, cause), "onUnknown");
        }
    }

    /**
     * What a lost write counts as under the retry policy: a conflict, since the read that follows decides it as one
     * (the write applied, or another write took its version).
     */
    private static final ElasticsearchException LOST = Failures.ofBulkItem(
            Failures.CONFLICT,
            ErrorCause.of(e -> e.type("version_conflict_engine_exception").reason("the answer to the write was lost")));

    private static boolean isBlock(ElasticsearchException failure) {
        return Reasons.hasType(failure, "cluster_block_exception");
    }

    /**
     * Another round for the item if the policy allows one: decided (read) again after a conflict or a rejected
     * read, sent again after a rejected write.
     */
    private void retryOrGiveUp(
            I item,
            ElasticsearchException failure,
            Map<I, Attempts> attempts,
            Next<I> next,
            Counts counts,
            boolean decideAgain) {
        Attempts a = attemptsOf(item, attempts);
        Optional<Duration> delay = a.onFailure(failure);
        if (delay.isPresent()) {
            (decideAgain ? next.decide : next.write).add(item);
            if (delay.get().compareTo(next.wait) > 0) {
                next.wait = delay.get();
            }
        } else if (abortOnBlock && isBlock(failure)) {
            next.abort(failure);
        } else {
            counts.gaveUp++;
            safely(() -> listener.onGaveUp(item, a.stopReason(), failure), "onGaveUp");
        }
    }

    /** The caller's attempts of the item, or the engine's. */
    private Attempts attemptsOf(I item, Map<I, Attempts> attempts) {
        return attemptsOf != null ? attemptsOf.apply(item) : attempts.computeIfAbsent(item, x -> policy.attempts());
    }

    private void safely(Runnable call, String what) {
        Listeners.safely(call, "ConditionalWrites.Listener." + what);
    }

    /** The items due in the next round, and the wait before it. */
    private static final class Next<I> {
        final List<I> write = new ArrayList<>();
        final List<I> decide = new ArrayList<>();
        Duration wait = Duration.ZERO;
        int rejectedNow;
        /** The first failure that fails the whole write. */
        @Nullable
        ElasticsearchException abort;

        void abort(ElasticsearchException failure) {
            if (abort == null) {
                abort = failure;
            }
        }
    }

    private static final class Counts {
        long unknown;
        long written;
        long conflicts;
        long rejected;
        long gaveUp;
        long failed;

        Report report(int rounds, boolean interrupted, boolean stopped) {
            return new Report(rounds, written, conflicts, rejected, gaveUp, failed, unknown, interrupted, stopped);
        }
    }

    /**
     * Configures a {@link ConditionalWrites}.
     *
     * @param <I> the caller's item type
     */
    public static final class Builder<I> {

        private final Function<I, BulkOperation> operation;
        private @Nullable ElasticsearchClient client;
        private @Nullable Sender sender;
        private @Nullable Decider<I> decider;
        private Listener<I> listener = new Listener<>() {};
        private RetryPolicy policy = RetryPolicy.defaults();
        private @Nullable Function<I, Attempts> attemptsOf;
        private @Nullable Refresh refresh;
        private int batchSize = Integer.MAX_VALUE;
        private int maxInFlight = 1;
        private boolean abortOnDenied;
        private boolean abortOnBlock;
        private LostAnswers lostAnswers = LostAnswers.FAIL;
        private BooleanSupplier stopWhen = () -> false;
        private String threadName = "esrel-bulk-writer";

        private Builder(Function<I, BulkOperation> operation) {
            this.operation = operation;
        }

        /**
         * The client that sends the bulks.
         *
         * @param client the client
         * @return this builder
         */
        public Builder<I> client(ElasticsearchClient client) {
            this.client = Objects.requireNonNull(client, "client cannot be null");
            return this;
        }

        Builder<I> sender(Sender sender) {
            this.sender = sender;
            return this;
        }

        /**
         * Decides items again after a conflict; without one, a conflict is final.
         *
         * @param decider the decider, or {@code null}
         * @return this builder
         */
        public Builder<I> decider(Decider<I> decider) {
            this.decider = decider;
            return this;
        }

        /**
         * Hears what happens to the items (default: nothing). Its exceptions are logged and ignored.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder<I> listener(Listener<I> listener) {
            this.listener = Objects.requireNonNull(listener, "listener cannot be null");
            return this;
        }

        /**
         * How often, and after which waits, an item's conflicts and rejections are retried.
         *
         * @param policy the policy, whose predicate judges 409 and 429 failures and whose sleeper waits
         * @return this builder
         */
        public Builder<I> retryPolicy(RetryPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy cannot be null");
            return this;
        }

        /**
         * Where each item keeps its attempts, for a caller that reports them (default: the engine keeps them,
         * one {@link RetryPolicy#attempts()} per item).
         *
         * @param attemptsOf the item's attempts, made by the same policy
         * @return this builder
         */
        public Builder<I> attempts(Function<I, Attempts> attemptsOf) {
            this.attemptsOf = Objects.requireNonNull(attemptsOf, "attemptsOf cannot be null");
            return this;
        }

        /**
         * The refresh parameter of every bulk (default: none).
         *
         * @param refresh the refresh, or {@code null}
         * @return this builder
         */
        public Builder<I> refresh(@Nullable Refresh refresh) {
            this.refresh = refresh;
            return this;
        }

        /**
         * The most items per bulk request and per decision read (default: all in one).
         *
         * @param batchSize the batch size, at least 1
         * @return this builder
         */
        public Builder<I> batchSize(int batchSize) {
            this.batchSize = Checks.positive(batchSize, "batchSize");
            return this;
        }

        /**
         * How many {@link #submit}ted writes run at once (default 1: on the caller's thread).
         *
         * @param maxInFlight the limit, at least 1
         * @param threadName the name of the pool's threads
         * @return this builder
         */
        public Builder<I> maxInFlight(int maxInFlight, String threadName) {
            this.maxInFlight = Checks.positive(maxInFlight, "maxInFlight");
            this.threadName = Objects.requireNonNull(threadName, "threadName cannot be null");
            return this;
        }

        /**
         * Whether an item refused for authentication or authorisation (401, 403) fails the whole write at once
         * (default: it fails alone, like any other item failure).
         *
         * @param abort true to fail the write
         * @return this builder
         */
        public Builder<I> abortOnDenied(boolean abort) {
            this.abortOnDenied = abort;
            return this;
        }

        /**
         * Whether an item refused by an index block ({@code cluster_block_exception}: {@code index.blocks.write},
         * {@code read_only}, {@code read_only_allow_delete}) fails the whole write, with the block's error (default:
         * it fails alone, or gives up under the retry policy for a 429 block, like any other item). A 403 block
         * fails the write at once, a 429 block once the retry policy gave up on it.
         *
         * @param abort true to fail the write
         * @return this builder
         */
        public Builder<I> abortOnBlock(boolean abort) {
            this.abortOnBlock = abort;
            return this;
        }

        /**
         * What becomes of an item whose answer was lost (see {@link LostAnswers}). Default {@link LostAnswers#FAIL}.
         *
         * @param lostAnswers what follows a lost answer; {@link LostAnswers#RECHECK} needs a {@link #decider}
         * @return this builder
         */
        public Builder<I> lostAnswers(LostAnswers lostAnswers) {
            this.lostAnswers = Objects.requireNonNull(lostAnswers, "lostAnswers cannot be null");
            return this;
        }

        /**
         * Asked before every round after the first: when it says stop, the items due are left unwritten
         * ({@link Listener#onStopped}). For a caller that learned from an item's answer that the rest must not
         * be written (a fenced lock holder), or whose own precondition ended (a lease).
         *
         * @param stop says whether to stop
         * @return this builder
         */
        public Builder<I> stopWhen(BooleanSupplier stop) {
            this.stopWhen = Objects.requireNonNull(stop, "stop cannot be null");
            return this;
        }

        /**
         * The engine.
         *
         * @return the engine
         * @throws NullPointerException if neither a client nor a sender was given
         * @throws IllegalArgumentException if lost answers are to be rechecked without a decider
         */
        public ConditionalWrites<I> build() {
            if (client == null && sender == null) {
                throw new NullPointerException("client cannot be null");
            }
            return new ConditionalWrites<>(this);
        }
    }
}
