package io.github.esrel.internal.bulk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorCause;
import co.elastic.clients.elasticsearch._types.ErrorResponse;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.bulk.OperationType;
import io.github.esrel.internal.Reasons;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The engine's rounds and classification, against a scripted bulk endpoint (the transport boundary): what a
 * real node answers is covered by the integration tests of the four callers.
 */
class ConditionalWritesTest {

    /** A document write: its id, and the seq_no its condition was decided on. */
    static final class Doc {
        final String id;
        int seqNo;

        Doc(String id) {
            this.id = id;
        }

        @Override
        public String toString() {
            return id + "@" + seqNo;
        }
    }

    /** Answers each bulk with the statuses scripted per id and round (200 when none), recording what was sent. */
    static final class ScriptedBulk implements ConditionalWrites.Sender {
        final Map<String, List<Integer>> statuses = new HashMap<>();
        final List<List<String>> requests = Collections.synchronizedList(new ArrayList<>());
        final Map<String, Integer> sent = new HashMap<>();
        int wholeRejections;
        /** The error type of every failed item, instead of the usual one of its status. */
        String errorType;

        ScriptedBulk answer(String id, Integer... perAttempt) {
            statuses.put(id, List.of(perAttempt));
            return this;
        }

        @Override
        public synchronized BulkResponse send(
                List<BulkOperation> ops, co.elastic.clients.elasticsearch._types.Refresh refresh) {
            List<String> ids = ops.stream().map(o -> o.index().id()).toList();
            requests.add(ids);
            if (wholeRejections > 0) {
                wholeRejections--;
                throw error(429, "es_rejected_execution_exception");
            }
            List<BulkResponseItem> items = new ArrayList<>();
            for (String id : ids) {
                int n = sent.merge(id, 1, Integer::sum) - 1;
                List<Integer> script = statuses.getOrDefault(id, List.of());
                int status = n < script.size() ? script.get(n) : 200;
                items.add(
                        errorType == null || status < 300
                                ? item(id, status)
                                : BulkResponseItem.of(i -> i.operationType(OperationType.Index)
                                        .index("docs")
                                        .id(id)
                                        .status(status)
                                        .error(e -> e.type(errorType)
                                                .reason("index [docs] blocked by: [status " + status + "]"))));
            }
            return BulkResponse.of(b -> b.errors(items.stream().anyMatch(i -> i.error() != null))
                    .took(1)
                    .items(items));
        }
    }

    static BulkResponseItem item(String id, int status) {
        return BulkResponseItem.of(i -> {
            i.operationType(OperationType.Index).index("docs").id(id).status(status);
            if (status >= 300) {
                i.error(cause(status));
            } else {
                i.result("updated").seqNo(7L).primaryTerm(1L).version(2L);
            }
            return i;
        });
    }

    static ErrorCause cause(int status) {
        String type = switch (status) {
            case 409 -> "version_conflict_engine_exception";
            case 429 -> "es_rejected_execution_exception";
            case 403 -> "security_exception";
            default -> "mapper_parsing_exception";
        };
        return ErrorCause.of(e -> e.type(type).reason("status " + status));
    }

    static ElasticsearchException error(int status, String type) {
        return new ElasticsearchException(
                "bulk",
                ErrorResponse.of(r -> r.status(status).error(e -> e.type(type).reason("whole request"))));
    }

    /** Records every listener call as a line. */
    static final class Log implements ConditionalWrites.Listener<Doc> {
        final List<String> calls = Collections.synchronizedList(new ArrayList<>());

        @Override
        public void beforeRound(int round, int items) {
            calls.add("round " + round + ": " + items);
        }

        @Override
        public void onWritten(Doc item, BulkResponseItem response) {
            calls.add("written " + item.id);
        }

        @Override
        public void onConflict(Doc item, int attempt, boolean finalOutcome) {
            calls.add("conflict " + item.id + " attempt " + attempt + (finalOutcome ? " final" : ""));
        }

        @Override
        public void onRejected(int items, Duration wait) {
            calls.add("rejected " + items + " wait " + wait.toMillis());
        }

        @Override
        public void onGaveUp(Doc item, StopReason stop, ElasticsearchException last) {
            calls.add("gave up " + item.id + " " + stop + " " + last.status());
        }

        @Override
        public void onFailed(Doc item, ElasticsearchException failure) {
            calls.add("failed " + item.id + " " + failure.status());
        }

        @Override
        public void onInterrupted(List<Doc> pending) {
            calls.add("interrupted " + pending);
        }
    }

    final ScriptedBulk bulk = new ScriptedBulk();
    final Log log = new Log();
    final List<Duration> slept = new ArrayList<>();
    final RetryPolicy policy = RetryPolicy.of(
            p -> p.maxAttempts(3).backoff(Backoff.fixed(Duration.ofMillis(10))).sleeper(slept::add));
    final List<List<String>> decided = new ArrayList<>();

    /** Re-reads: each decision bumps the seq_no the next write is conditional on. */
    final ConditionalWrites.Decider<Doc> rereading = (items, out) -> {
        decided.add(items.stream().map(d -> d.id).toList());
        for (Doc d : items) {
            d.seqNo++;
            out.write(d);
        }
    };

    ConditionalWrites.Builder<Doc> engine() {
        return ConditionalWrites.<Doc>builder(d -> BulkOperation.of(o -> o.index(x -> x.index("docs")
                        .id(d.id)
                        .ifSeqNo((long) d.seqNo)
                        .ifPrimaryTerm(1L)
                        .document(Map.of()))))
                .sender(bulk)
                .retryPolicy(policy)
                .listener(log);
    }

    static List<Doc> docs(String... ids) {
        return java.util.Arrays.stream(ids).map(Doc::new).toList();
    }

    @Test
    void shouldWriteEverythingInOneRoundWhenNothingConflicts() throws IOException {
        ConditionalWrites.Report r = engine().build().write(docs("a", "b", "c"));
        assertThat(r).isEqualTo(new ConditionalWrites.Report(1, 3, 0, 0, 0, 0, false, false));
        assertThat(bulk.requests).containsExactly(List.of("a", "b", "c"));
        assertThat(log.calls).containsExactly("round 1: 3", "written a", "written b", "written c");
        assertThat(slept).isEmpty();
    }

    @Test
    void shouldDecideAConflictedItemAgainAndWriteItInTheNextRoundAfterTheBackoff() throws IOException {
        bulk.answer("b", 409);
        List<Doc> docs = docs("a", "b", "c");
        ConditionalWrites.Report r = engine().decider(rereading).build().write(docs);
        assertThat(r).isEqualTo(new ConditionalWrites.Report(2, 3, 1, 0, 0, 0, false, false));
        assertThat(decided).containsExactly(List.of("b"));
        assertThat(bulk.requests).containsExactly(List.of("a", "b", "c"), List.of("b"));
        assertThat(docs.get(1).seqNo)
                .as("written on the condition of the new read")
                .isEqualTo(1);
        assertThat(slept).containsExactly(Duration.ofMillis(10));
        assertThat(log.calls)
                .containsExactly(
                        "round 1: 3", "written a", "conflict b attempt 1", "written c", "round 2: 1", "written b");
    }

    @Test
    void shouldTreatAConflictAsFinalWithoutADecider() throws IOException {
        bulk.answer("b", 409);
        ConditionalWrites.Report r = engine().build().write(docs("a", "b"));
        assertThat(r).isEqualTo(new ConditionalWrites.Report(1, 1, 1, 0, 0, 0, false, false));
        assertThat(log.calls).contains("conflict b attempt 1 final").doesNotContain("round 2: 1");
    }

    @Test
    void shouldResendARejectedItemUnchangedWithoutDecidingAgain() throws IOException {
        bulk.answer("a", 429, 429);
        List<Doc> docs = docs("a", "b");
        ConditionalWrites.Report r = engine().decider(rereading).build().write(docs);
        assertThat(r).isEqualTo(new ConditionalWrites.Report(3, 2, 0, 2, 0, 0, false, false));
        assertThat(decided).isEmpty();
        assertThat(docs.get(0).seqNo).isZero();
        assertThat(bulk.requests).containsExactly(List.of("a", "b"), List.of("a"), List.of("a"));
        assertThat(log.calls).contains("rejected 1 wait 10");
    }

    @Test
    void shouldResendEveryItemWhenTheWholeRequestIsRejected() throws IOException {
        bulk.wholeRejections = 1;
        ConditionalWrites.Report r = engine().build().write(docs("a", "b"));
        assertThat(r).isEqualTo(new ConditionalWrites.Report(2, 2, 0, 2, 0, 0, false, false));
        assertThat(bulk.requests).containsExactly(List.of("a", "b"), List.of("a", "b"));
    }

    @Test
    void shouldGiveUpWhenConflictsOrRejectionsOutlastThePolicy() throws IOException {
        bulk.answer("a", 409, 409, 409).answer("b", 429, 429, 429);
        ConditionalWrites.Report r = engine().decider(rereading).build().write(docs("a", "b"));
        assertThat(r.gaveUp()).isEqualTo(2);
        assertThat(r.written()).isZero();
        assertThat(r.rounds()).isEqualTo(3);
        assertThat(log.calls).contains("gave up a MAX_ATTEMPTS 409", "gave up b MAX_ATTEMPTS 429");
        assertThat(bulk.sent).containsEntry("a", 3).containsEntry("b", 3);
    }

    @Test
    void shouldNotRetryWhatThePolicyDoesNotAccept() throws IOException {
        bulk.answer("a", 409);
        RetryPolicy onlyRejections = policy.toBuilder()
                .retryOn(io.github.esrel.retry.Failures.rejected())
                .build();
        ConditionalWrites.Report r =
                engine().decider(rereading).retryPolicy(onlyRejections).build().write(docs("a"));
        assertThat(r.gaveUp()).isOne();
        assertThat(log.calls).contains("gave up a NOT_RETRYABLE 409");
    }

    @Test
    void shouldFailOneItemOrTheWholeWriteWhenDenied() throws IOException {
        bulk.answer("a", 403);
        ConditionalWrites.Report r = engine().build().write(docs("a", "b"));
        assertThat(r.failed()).isOne();
        assertThat(log.calls).contains("failed a 403", "written b");

        bulk.sent.clear();
        assertThatThrownBy(() -> engine().abortOnDenied(true).build().write(docs("a", "b")))
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(403));
    }

    @Test
    void shouldFailTheWholeWriteAtAnIndexBlockAtOnceOrWhenItsRejectionsOutlastThePolicy() throws IOException {
        bulk.errorType = "cluster_block_exception";
        bulk.answer("a", 403);
        assertThatThrownBy(() -> engine().abortOnBlock(true).build().write(docs("b", "a", "c")))
                .isInstanceOfSatisfying(ElasticsearchException.class, e -> {
                    assertThat(e.status()).isEqualTo(403);
                    assertThat(Reasons.of(e)).contains("cluster_block_exception", "index [docs] blocked by");
                });
        assertThat(log.calls)
                .as("the rest of the answer is still reported")
                .contains("written b", "written c")
                .noneMatch(c -> c.startsWith("failed"));
        assertThat(bulk.requests).hasSize(1);

        bulk.sent.clear();
        bulk.requests.clear();
        log.calls.clear();
        bulk.answer("a", 429, 429, 429);
        assertThatThrownBy(() -> engine().abortOnBlock(true).build().write(docs("a")))
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(429));
        assertThat(bulk.requests)
                .as("a 429 block is retried under the policy first")
                .hasSize(3);
        assertThat(log.calls).noneMatch(c -> c.startsWith("gave up"));

        bulk.sent.clear();
        assertThat(engine().build().write(docs("a")).gaveUp())
                .as("without the option, the item's own outcome")
                .isOne();
    }

    @Test
    void shouldReportOtherItemFailuresWithoutRetrying() throws IOException {
        bulk.answer("a", 400);
        ConditionalWrites.Report r = engine().decider(rereading).build().write(docs("a"));
        assertThat(r).isEqualTo(new ConditionalWrites.Report(1, 0, 0, 0, 0, 1, false, false));
        assertThat(bulk.requests).hasSize(1);
    }

    @Test
    void shouldThrowWhenARoundFailsAsAWhole() {
        ConditionalWrites<Doc> failing = ConditionalWrites.<Doc>builder(d -> BulkOperation.of(
                        o -> o.index(x -> x.index("docs").id(d.id).document(Map.of()))))
                .sender((ops, refresh) -> {
                    throw error(503, "unavailable_shards_exception");
                })
                .retryPolicy(policy)
                .build();
        assertThatThrownBy(() -> failing.write(docs("a")))
                .isInstanceOfSatisfying(
                        ElasticsearchException.class,
                        e -> assertThat(e.status()).isEqualTo(503));
    }

    @Test
    void shouldSplitRequestsIntoBatches() throws IOException {
        engine().batchSize(2).build().write(docs("a", "b", "c", "d", "e"));
        assertThat(bulk.requests).containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
    }

    @Test
    void shouldDecideFirstAndReadAgainAfterARejectedRead() throws IOException {
        AtomicInteger reads = new AtomicInteger();
        ConditionalWrites.Decider<Doc> rejectedOnce = (items, out) -> {
            for (Doc d : items) {
                if (d.id.equals("b") && reads.getAndIncrement() == 0) {
                    out.readAgain(d, error(429, "es_rejected_execution_exception"));
                } else if (!d.id.equals("gone")) {
                    out.write(d);
                }
            }
        };
        ConditionalWrites.Report r = engine().decider(rejectedOnce).build().decideAndWrite(docs("a", "b", "gone"));
        assertThat(r).isEqualTo(new ConditionalWrites.Report(2, 2, 0, 1, 0, 0, false, false));
        assertThat(bulk.requests).containsExactly(List.of("a"), List.of("b"));
        assertThatThrownBy(() -> engine().build().decideAndWrite(docs("a"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldStopAndSayWhatIsLeftWhenInterruptedBetweenRounds() throws IOException {
        bulk.answer("a", 429);
        RetryPolicy interrupting = policy.toBuilder()
                .sleeper(d -> {
                    throw new InterruptedException();
                })
                .build();
        ConditionalWrites.Report r = engine().retryPolicy(interrupting).build().write(docs("a", "b"));
        assertThat(r.interrupted()).isTrue();
        assertThat(Thread.interrupted()).as("the flag stays set").isTrue();
        assertThat(log.calls).contains("interrupted [a@0]");
    }

    @Test
    void shouldLeaveTheRestUnwrittenWhenToldToStop() throws IOException {
        bulk.answer("a", 409).answer("b", 429);
        List<String> stopped = new ArrayList<>();
        boolean[] fenced = {false};
        ConditionalWrites.Report r = engine().stopWhen(() -> fenced[0])
                .listener(new ConditionalWrites.Listener<>() {
                    @Override
                    public void onConflict(Doc item, int attempt, boolean finalOutcome) {
                        fenced[0] = true;
                    }

                    @Override
                    public void onStopped(List<Doc> pending) {
                        pending.forEach(d -> stopped.add(d.id));
                    }
                })
                .build()
                .write(docs("a", "b", "c"));
        assertThat(r.stopped()).isTrue();
        assertThat(r.written()).isOne();
        assertThat(stopped).containsExactly("b");
        assertThat(bulk.requests).hasSize(1);
    }

    @Test
    void shouldKeepWritingWhenTheListenerThrows() throws IOException {
        ConditionalWrites.Report r = engine().listener(new ConditionalWrites.Listener<>() {
                    @Override
                    public void onWritten(Doc item, BulkResponseItem response) {
                        throw new IllegalStateException("listener bug");
                    }
                })
                .build()
                .write(docs("a", "b"));
        assertThat(r.written()).isEqualTo(2);
    }

    @Test
    void shouldRunAtMostMaxInFlightSubmittedWritesAtOnce() throws Exception {
        CountDownLatch twoInFlight = new CountDownLatch(2);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ConditionalWrites.Sender slow = (ops, refresh) -> {
            most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            twoInFlight.countDown();
            try {
                twoInFlight.await(5, TimeUnit.SECONDS); // both writes are out together, or this waits in vain
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inFlight.decrementAndGet();
            return bulk.send(ops, refresh);
        };
        try (ConditionalWrites<Doc> engine =
                engine().sender(slow).maxInFlight(2, "test-writer").build()) {
            List<CompletableFuture<ConditionalWrites.Report>> all = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                all.add(engine.submit(docs("d" + i)));
            }
            for (CompletableFuture<ConditionalWrites.Report> f : all) {
                assertThat(f.get(10, TimeUnit.SECONDS).written()).isOne();
            }
        }
        assertThat(twoInFlight.getCount()).isZero();
        assertThat(most.get()).isEqualTo(2);
    }

    @Test
    void shouldHandBackTheFailureOfASubmittedWrite() throws Exception {
        ConditionalWrites<Doc> failing = engine().sender((ops, refresh) -> {
                    throw new IOException("connection reset");
                })
                .maxInFlight(2, "test-writer")
                .build();
        CompletableFuture<ConditionalWrites.Report> f = failing.submit(docs("a"));
        Exception e = ConditionalWrites.unwrap(assertThatThrownByGet(f));
        assertThat(e).isInstanceOf(IOException.class).hasMessage("connection reset");
        failing.close();
    }

    private static Throwable assertThatThrownByGet(CompletableFuture<?> f) {
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return e;
        }
        throw new AssertionError("expected a failure");
    }
}
