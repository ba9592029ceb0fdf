package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchAsyncClient;
import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.MgetResponse;
import co.elastic.clients.elasticsearch.core.get.GetResult;
import co.elastic.clients.elasticsearch.core.mget.MultiGetResponseItem;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.LowLevelClients;
import io.github.esrel.internal.NonBlockingThreads;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.blockhound.BlockingOperationError;

/**
 * The non-blocking form of {@link Occ} ({@link OccAsync}, issue 46) on a real node, on each low-level client of the
 * client line, under BlockHound: the client's I/O threads, where the attempts run, are checked for blocking calls, so
 * a lane's lock that parked, a sleep for the backoff or a blocking request anywhere on the way fails the test. The
 * same outcomes as the blocking form, and exact counts under 1,000 concurrent calls from one thread.
 */
@EsrelTest
class OccAsyncIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final ElasticsearchClient es = cluster.client();
    private final List<LowLevelClients.Hosts> opened = new ArrayList<>();
    /** True in the test of the detector itself. */
    private boolean expectBlocking;
    /** The threads the functions ran on. */
    private final Set<String> ranOn = ConcurrentHashMap.newKeySet();

    @JsonIgnoreProperties(ignoreUnknown = true) // the outcomes test keeps a field it does not map
    record Counter(long count) {
        Counter plus(long n) {
            return new Counter(count + n);
        }
    }

    static List<String> lowLevelClients() {
        return LowLevelClients.names();
    }

    @BeforeAll
    static void blockHound() {
        NonBlockingThreads.install();
    }

    @AfterEach
    void close() throws IOException {
        for (LowLevelClients.Hosts hosts : opened) {
            hosts.close();
        }
        List<BlockingOperationError> blocked = NonBlockingThreads.seen();
        if (!blocked.isEmpty() && !expectBlocking) {
            AssertionError e = new AssertionError(blocked.size() + " blocking call(s) on an I/O thread, the first: "
                    + blocked.get(0).getMessage());
            e.initCause(blocked.get(0));
            throw e;
        }
    }

    /** An application's async client on {@code lowLevel}, whose I/O threads BlockHound checks. */
    private ElasticsearchAsyncClient asyncClient(String lowLevel) {
        LowLevelClients.Hosts hosts = LowLevelClients.open(
                lowLevel, cluster.httpUris(), cluster.requestHeaders(), NonBlockingThreads.factory());
        opened.add(hosts);
        ElasticsearchClient client = hosts.client();
        return new ElasticsearchAsyncClient(client._transport(), client._transportOptions());
    }

    private Counter counted(Counter c, long n) {
        ranOn.add(Thread.currentThread().getName());
        return c.plus(n);
    }

    @ParameterizedTest
    @MethodSource("lowLevelClients")
    void shouldEndEachCallAsTheBlockingFormDoesWithoutBlockingAnIoThread(String lowLevel) throws Exception {
        String index = "async-outcomes-" + lowLevel.toLowerCase();
        createIndex(index);
        es.index(i -> i.index(index)
                .id("a")
                .document(Map.of("count", 0, "note", "a field the class does not map"))
                .refresh(co.elastic.clients.elasticsearch._types.Refresh.True));
        OccMetrics metrics = new OccMetrics();
        OccAsync occ =
                Occ.of(b -> b.client(asyncClient(lowLevel)).listener(metrics)).async();

        Outcome<Counter> updated = join(occ.update(index, "a", Counter.class, c -> counted(c, 1)));
        assertThat(updated.status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(updated.value().count()).isEqualTo(1);
        assertThat(source(index, "a").get("note").asText()).isEqualTo("a field the class does not map");

        Outcome<Counter> same = join(occ.update(index, "a", Counter.class, c -> c));
        assertThat(same.status()).isEqualTo(Outcome.Status.NOOP);
        assertThat(same.seqNo()).isEqualTo(updated.seqNo());

        assertThat(join(occ.update(index, "missing", Counter.class, c -> c.plus(1)))
                        .status())
                .isEqualTo(Outcome.Status.NOT_FOUND);
        Outcome<Counter> created = join(occ.upsert(index, "b", Counter.class, () -> new Counter(10), c -> c.plus(1)));
        assertThat(created.status()).isEqualTo(Outcome.Status.CREATED);
        assertThat(created.value().count()).isEqualTo(11);

        assertThat(join(occ.deleteIf(index, "b", Counter.class, c -> c.count() > 100))
                        .status())
                .isEqualTo(Outcome.Status.NOOP);
        assertThat(join(occ.deleteIf(index, "b", Counter.class, c -> c.count() == 11))
                        .status())
                .isEqualTo(Outcome.Status.DELETED);
        assertThat(es.exists(e -> e.index(index).id("b")).value()).isFalse();

        // What the caller saw: replace and delete it if unchanged, one conditional write each, never retried.
        Versioned<Counter> seen = join(occ.get(index, "a", Counter.class)).orElseThrow();
        assertThat(join(occ.replace(seen, seen.value().plus(5))).status()).isEqualTo(Outcome.Status.UPDATED);
        assertThat(source(index, "a").get("note").asText()).isEqualTo("a field the class does not map");
        assertThat(join(occ.tryReplace(seen, seen.value().plus(7))).status()).isEqualTo(Outcome.Status.CONFLICT);
        assertThatThrownBy(() -> join(occ.deleteIfUnchanged(seen))).cause().isInstanceOf(OccConflictException.class);
        es.index(i -> i.index(index).id("c").document(new Counter(3)));
        Versioned<Counter> third = join(occ.get(index, "c", Counter.class)).orElseThrow();
        assertThat(join(occ.deleteIfUnchanged(third)).status()).isEqualTo(Outcome.Status.DELETED);

        // A function's own exception fails its future, unchanged.
        IllegalStateException mine = new IllegalStateException("the application's own");
        assertThatThrownBy(() -> join(occ.update(index, "a", Counter.class, c -> {
                    throw mine;
                })))
                .isInstanceOf(CompletionException.class)
                .cause()
                .isSameAs(mine);

        // A routed document asked for without its routing, on another shard: the routing check's search.
        String routed = "async-routed-" + lowLevel.toLowerCase();
        createIndex(routed, 5);
        // The builders' routing method differs between client versions: ClientApi is the seam.
        es.index(i -> ClientApi.routing(i.index(routed).id("shirt-1"), "tenant-a")
                .document(Map.of("count", 0))
                .refresh(co.elastic.clients.elasticsearch._types.Refresh.True));
        assertThatThrownBy(() -> join(occ.update(routed, "shirt-1", Counter.class, c -> c.plus(1))))
                .cause()
                .isInstanceOf(OccException.class)
                .hasMessageContaining("with routing [tenant-a]");
        assertThat(join(occ.update(DocRef.of(routed, "shirt-1").withRouting("tenant-a"), Counter.class, c -> c.plus(1)))
                        .status())
                .isEqualTo(Outcome.Status.UPDATED);

        assertThat(metrics.snapshot().written())
                .isEqualTo(6); // updated, replaced, deleted if unchanged, created, deleted, the routed one
        assertThat(ranOn)
                .as("the functions ran on the client's I/O threads, which BlockHound checks")
                .anyMatch(name -> name.startsWith(NonBlockingThreads.PREFIX));
    }

    @ParameterizedTest
    @MethodSource("lowLevelClients")
    void shouldCount1000ConcurrentAsyncUpdatesOfOneDocumentFromTwoProcessesExactly(String lowLevel) throws Exception {
        String index = "async-hot-" + lowLevel.toLowerCase();
        createIndex(index);
        es.index(i -> i.index(index).id("hot").document(new Counter(0)));
        // Two updaters stand for two processes: combined within each, conflicting between them (retried on a timer).
        OccMetrics first = new OccMetrics();
        OccMetrics second = new OccMetrics();
        OccAsync one =
                Occ.of(b -> b.client(asyncClient(lowLevel)).listener(first)).async();
        OccAsync other =
                Occ.of(b -> b.client(asyncClient(lowLevel)).listener(second)).async();
        int calls = 1000;
        List<CompletableFuture<Outcome<Counter>>> all = new ArrayList<>();
        for (int n = 0; n < calls; n++) {
            OccAsync occ = n % 2 == 0 ? one : other;
            all.add(occ.update(index, "hot", Counter.class, c -> counted(c, 1)));
        }
        List<Outcome<Counter>> outcomes = joinAll(all);

        assertThat(outcomes).allMatch(o -> o.status() == Outcome.Status.UPDATED);
        assertThat(es.get(g -> g.index(index).id("hot"), Counter.class).source().count())
                .isEqualTo(calls);
        long writes = outcomes.stream().mapToLong(Outcome::seqNo).distinct().count();
        System.out.printf(
                "%s: %d async updates of one document in %d writes; conflicts %d and %d%n",
                lowLevel,
                calls,
                writes,
                first.snapshot().conflicts(),
                second.snapshot().conflicts());
        assertThat(writes).as("calls were combined").isLessThan(calls);
        assertThat(first.snapshot().written() + second.snapshot().written()).isEqualTo(calls);
    }

    @ParameterizedTest
    @MethodSource("lowLevelClients")
    void shouldUpsertAndUpdate1000DocumentsConcurrentlyExactly(String lowLevel) throws Exception {
        String index = "async-many-" + lowLevel.toLowerCase();
        createIndex(index);
        OccAsync occ = Occ.of(b -> b.client(asyncClient(lowLevel))).async();
        int docs = 1000;
        // Each document: an upsert that creates it and an update chained on it, every chain in flight at once.
        List<CompletableFuture<Outcome<Counter>>> chains = IntStream.range(0, docs)
                .mapToObj(n -> occ.upsert(index, "d" + n, Counter.class, () -> new Counter(0), c -> counted(c, 1))
                        .thenCompose(created -> occ.update(index, "d" + n, Counter.class, c -> counted(c, 1))))
                .toList();
        assertThat(joinAll(chains)).allMatch(o -> o.status() == Outcome.Status.UPDATED);
        MgetResponse<Counter> got = es.mget(
                m -> m.index(index)
                        .ids(IntStream.range(0, docs).mapToObj(n -> "d" + n).toList()),
                Counter.class);
        assertThat(got.docs())
                .extracting(MultiGetResponseItem::result)
                .extracting(GetResult::source)
                .allMatch(c -> c.count() == 2);
    }

    @ParameterizedTest
    @MethodSource("lowLevelClients")
    void shouldRetryUncombinedCallsOnATimerAndCountThemExactly(String lowLevel) throws Exception {
        String index = "async-alone-" + lowLevel.toLowerCase();
        createIndex(index);
        es.index(i -> i.index(index).id("hot").document(new Counter(0)));
        OccMetrics metrics = new OccMetrics();
        OccAsync occ = Occ.of(b ->
                        b.client(asyncClient(lowLevel)).combineWrites(false).listener(metrics))
                .async();
        int calls = 100;
        List<CompletableFuture<Outcome<Counter>>> all = new ArrayList<>();
        for (int n = 0; n < calls; n++) {
            all.add(occ.update(index, "hot", Counter.class, c -> counted(c, 1)));
        }
        assertThat(joinAll(all)).allMatch(o -> o.status() == Outcome.Status.UPDATED);
        assertThat(es.get(g -> g.index(index).id("hot"), Counter.class).source().count())
                .isEqualTo(calls);
        assertThat(metrics.snapshot().conflicts())
                .as("uncombined calls of one document conflict, and were retried after a backoff")
                .isPositive();
    }

    @ParameterizedTest
    @MethodSource("lowLevelClients")
    void shouldSeeABlockingCallOnAnIoThread(String lowLevel) throws Exception {
        // The detector is live: a function that sleeps, run on an I/O thread, fails there.
        expectBlocking = true;
        String index = "async-detector-" + lowLevel.toLowerCase();
        createIndex(index);
        es.index(i -> i.index(index).id("a").document(new Counter(0)));
        OccAsync occ = Occ.of(b -> b.client(asyncClient(lowLevel))).async();
        assertThatThrownBy(() -> join(occ.update(index, "a", Counter.class, c -> {
                    if (NonBlockingThreads.current()) {
                        try {
                            Thread.sleep(1);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return c.plus(1);
                })))
                .cause()
                .isInstanceOf(BlockingOperationError.class);
    }

    private static <T> T join(CompletableFuture<T> future) throws Exception {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new CompletionException(e.getCause());
        }
    }

    private static <T> List<T> joinAll(List<CompletableFuture<T>> futures) throws Exception {
        CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        return futures.stream().map(CompletableFuture::join).toList();
    }

    private ObjectNode source(String index, String id) throws IOException {
        return es.get(g -> g.index(index).id(id), ObjectNode.class).source();
    }

    private void createIndex(String index) throws IOException {
        createIndex(index, 1);
    }

    private void createIndex(String index, int shards) throws IOException {
        if (es.indices().exists(e -> e.index(index)).value()) {
            es.indices().delete(d -> d.index(index));
        }
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0")));
    }
}
