package io.github.esrel.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.doc.DocRef;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.internal.RestCall;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seed 002's anomaly on a real node: ids written again under another routing value live twice, on two shards.
 * The scan must find exactly those ids, with the routing value, shard, {@code _seq_no} and {@code _primary_term}
 * of every copy (checked against the bulk responses that wrote them and against the shards that hold them,
 * asked one by one with {@code preference=_shards:N}), in memory and spilled to many partitions, and leave no
 * point in time open and no spill file behind.
 */
@EsrelTest
class DuplicateIdScanIT {

    private static final int SHARDS = 5;
    private static final int DOCS = 3000;

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** The orders index and what the scan must report on it, built once for the tests that read it. */
    private static Orders orders;

    private final ElasticsearchClient es = cluster.client();

    @TempDir
    Path spill;

    @Test
    void shouldReportEveryDuplicatedIdWithTheRoutingShardAndSeqNoOfEachCopy() throws IOException {
        Orders o = orders();
        Recording listener = new Recording();
        DuplicateIdReport report = DuplicateIdScanner.of(
                        b -> b.client(es).listener(listener).spillDirectory(spill))
                .scan(o.index);

        assertThat(report.documents()).isEqualTo(o.documents);
        assertThat(report.duplicates())
                .usingRecursiveFieldByFieldElementComparator()
                .containsExactlyElementsOf(o.expected);
        assertThat(report.duplicatedIds()).isEqualTo(6);
        assertThat(report.extraCopies()).isEqualTo(4 + 2 * 2);
        assertThat(report.truncated()).isFalse();
        assertThat(report.clean()).isFalse();
        assertThat(report.partitions())
                .as("3,008 ids fit the default budget: one table, no disk")
                .isEqualTo(1);
        assertThat(report.spilledBytes()).isZero();

        DuplicateId order12 = report.duplicates().stream()
                .filter(d -> d.id().equals("order-12"))
                .findFirst()
                .orElseThrow();
        assertThat(order12.routings())
                .as("the original copy was routed by its id")
                .contains((String) null);
        DuplicateId.Copy stray = order12.copies().stream()
                .filter(c -> c.routing() != null)
                .findFirst()
                .orElseThrow();
        assertThat(stray.deleteRequest())
                .isEqualTo("DELETE /" + o.index + "/_doc/order-12?routing=" + stray.routing() + "&if_seq_no="
                        + stray.seqNo() + "&if_primary_term=" + stray.primaryTerm());

        listener.assertProgress(o.documents, 1, 6);
        assertThat(listener.started).containsExactly(o.index + " " + o.documents + " 1 " + Math.min(SHARDS, 4));
        assertThat(listener.finished).containsExactly(report);
        assertThat(listener.failed).isEmpty();
        assertNoOpenPointInTime(o.index);
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void shouldFindTheSameDuplicatesWhenATinyMemoryBudgetSpillsToManyPartitions() throws IOException {
        Orders o = orders();
        Recording listener = new Recording();
        DuplicateIdReport report = DuplicateIdScanner.of(b -> b.client(es)
                        .maxIdsInMemory(100)
                        .pageSize(250)
                        .slices(3)
                        .listener(listener)
                        .spillDirectory(spill))
                .scan(o.index);

        assertThat(report.duplicates())
                .usingRecursiveFieldByFieldElementComparator()
                .containsExactlyElementsOf(o.expected);
        assertThat(report.duplicatedIds()).isEqualTo(6);
        assertThat(report.extraCopies()).isEqualTo(8);
        int planned = DuplicateFinder.fanout(o.documents, 100);
        assertThat(planned).isEqualTo(38);
        assertThat(report.partitions())
                .as("every planned partition, and any split again")
                .isGreaterThanOrEqualTo(planned);
        assertThat(report.spilledBytes()).as("every id once, at least").isGreaterThan(o.documents * 8L);
        assertThat(listener.started).containsExactly(o.index + " " + o.documents + " " + planned + " 3");
        listener.assertProgress(o.documents, report.partitions(), 6);
        assertThat(spill).as("spill files deleted").isEmptyDirectory();
        assertNoOpenPointInTime(o.index);
    }

    @Test
    void shouldListAtMostMaxReportedIdsButCountThemAll() throws IOException {
        Orders o = orders();
        for (int budget : new int[] {1_000_000, 100}) {
            DuplicateIdReport report = DuplicateIdScanner.of(b ->
                            b.client(es).maxReported(2).maxIdsInMemory(budget).spillDirectory(spill))
                    .scan(o.index);
            assertThat(report.duplicates()).hasSize(2);
            assertThat(o.expected).usingRecursiveFieldByFieldElementComparator().containsAll(report.duplicates());
            assertThat(report.truncated()).isTrue();
            assertThat(report.duplicatedIds()).isEqualTo(6);
            assertThat(report.extraCopies()).isEqualTo(8);
        }
        DuplicateIdReport countsOnly =
                DuplicateIdScanner.of(b -> b.client(es).maxReported(0)).scan(o.index);
        assertThat(countsOnly.duplicates()).isEmpty();
        assertThat(countsOnly.truncated()).isTrue();
        assertThat(countsOnly.duplicatedIds()).isEqualTo(6);
    }

    @Test
    void shouldReportACleanIndexAndNotTakeAnOverwriteOnTheSameShardForADuplicate() throws IOException {
        String index = "dupscan-clean";
        createIndex(index, 3);
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator(index);
        List<DocRef> docs = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            docs.add(DocRef.id("doc-" + i).withRouting(i % 2 == 0 ? null : "tenant-" + i % 17));
        }
        // Seed 002's second case: another routing value that leads to the same shard overwrites the document.
        String first = "same-shard-a";
        String second = calc.routingValuesForShard(
                        calc.shard(DocRef.id("doc-x").withRouting(first)), 1, "same-shard-b-")
                .get(0);
        docs.add(DocRef.id("doc-x").withRouting(first));
        docs.add(DocRef.id("doc-x").withRouting(second));
        bulk(index, docs);
        for (int slices : new int[] {1, 3}) {
            for (int budget : new int[] {1_000_000, 100}) {
                DuplicateIdReport report = DuplicateIdScanner.of(b -> b.client(es)
                                .slices(slices)
                                .maxIdsInMemory(budget)
                                .spillDirectory(spill))
                        .scan(index);
                assertThat(report.clean())
                        .as("%d slices, budget %d", slices, budget)
                        .isTrue();
                assertThat(report.documents()).isEqualTo(2001);
                assertThat(report.duplicatedIds()).isZero();
                assertThat(report.extraCopies()).isZero();
                assertThat(report.duplicates()).isEmpty();
                assertThat(report.truncated()).isFalse();
            }
        }
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void shouldScanAnEmptyIndex() throws IOException {
        createIndex("dupscan-empty", 2);
        Recording listener = new Recording();
        DuplicateIdReport report =
                DuplicateIdScanner.of(b -> b.client(es).listener(listener)).scan("dupscan-empty");
        assertThat(report.clean()).isTrue();
        assertThat(report.documents()).isZero();
        listener.assertProgress(0, 1, 0);
    }

    @Test
    void shouldFindDuplicatesInAPartitionedIndex() throws IOException {
        String index = "dupscan-partitioned";
        es.indices()
                .create(c -> c.index(index)
                        .settings(
                                s -> s.numberOfShards("6").numberOfReplicas("0").routingPartitionSize(3))
                        .mappings(m -> m.routing(r -> r.required(true))));
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator(index);
        List<DocRef> docs = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            docs.add(DocRef.id("item-" + i).withRouting("tenant-" + i % 11));
        }
        // item-3 again under another tenant whose partition puts it on another shard.
        int shard = calc.shard(DocRef.id("item-3").withRouting("tenant-3"));
        String other = null;
        for (int t = 100; other == null; t++) {
            if (calc.shard(DocRef.id("item-3").withRouting("tenant-" + t)) != shard) {
                other = "tenant-" + t;
            }
        }
        docs.add(DocRef.id("item-3").withRouting(other));
        Map<DocRef, long[]> written = bulk(index, docs);
        Map<DocRef, Integer> real = realShards(index, 6, List.of("item-3"));

        DuplicateIdReport report = DuplicateIdScanner.of(
                        b -> b.client(es).maxIdsInMemory(100).spillDirectory(spill))
                .scan(index);
        assertThat(report.documents()).isEqualTo(1501);
        assertThat(report.duplicates()).hasSize(1);
        DuplicateId d = report.duplicates().get(0);
        assertThat(d.id()).isEqualTo("item-3");
        assertThat(d.routings()).containsExactlyInAnyOrder("tenant-3", other);
        for (DuplicateId.Copy c : d.copies()) {
            DocRef ref = DocRef.of(index, "item-3").withRouting(c.routing());
            assertThat(c.shard()).isEqualTo(real.get(ref)).isEqualTo(calc.shard(ref));
            assertThat(c.seqNo()).isEqualTo(written.get(ref)[0]);
            assertThat(c.primaryTerm()).isEqualTo(written.get(ref)[1]);
        }
    }

    @Test
    void shouldRemoveTheStrayCopyWithItsRoutingAndScanCleanAfterwards() throws IOException {
        String index = "dupscan-fix";
        createIndex(index, SHARDS);
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator(index);
        String home = "abc";
        String stray = calc.routingValuesForShard(
                        (calc.shard(DocRef.id("123").withRouting(home)) + 1) % SHARDS, 1, "xyz-")
                .get(0);
        bulk(index, List.of(DocRef.id("123").withRouting(home), DocRef.id("123").withRouting(stray), DocRef.id("124")));
        DuplicateIdScanner scanner = DuplicateIdScanner.of(b -> b.client(es));
        DuplicateId d = scanner.scan(index).duplicates().get(0);
        DuplicateId.Copy c = d.copyWithRouting(stray);
        es.delete(x -> ClientApi.routing(
                        x.index(c.doc().index()).id(c.doc().id()), c.doc().routing())
                .ifSeqNo(c.seqNo())
                .ifPrimaryTerm(c.primaryTerm())
                .refresh(Refresh.True));
        DuplicateIdReport after = scanner.scan(index);
        assertThat(after.clean()).isTrue();
        assertThat(after.documents()).isEqualTo(2);
        assertThat(es.get(g -> ClientApi.routing(g.index(index).id("123"), home), Void.class)
                        .found())
                .as("the kept copy")
                .isTrue();
    }

    @Test
    void shouldFailWithNotFoundForAMissingIndex() {
        Recording listener = new Recording();
        DuplicateIdScanner scanner =
                DuplicateIdScanner.of(b -> b.client(es).listener(listener).spillDirectory(spill));
        assertThatThrownBy(() -> scanner.scan("dupscan-no-such-index"))
                .isInstanceOf(RoutingException.class)
                .hasMessageContaining("no such index [dupscan-no-such-index]")
                .satisfies(e -> assertThat(((RoutingException) e).status()).isEqualTo(404));
        assertThat(listener.failed).hasSize(1);
        assertThat(listener.finished).isEmpty();
        assertThat(spill).isEmptyDirectory();
    }

    @Test
    void shouldDeleteItsSpillFilesWhenTheScanFailsHalfway() throws IOException {
        String index = "dupscan-vanishing";
        createIndex(index, 2);
        List<DocRef> docs = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            docs.add(DocRef.id("v-" + i));
        }
        bulk(index, docs);
        Recording listener = new Recording() {
            @Override
            public void onProgress(ScanProgress p) {
                super.onProgress(p);
                if (p.phase() == ScanProgress.Phase.READ && p.done() > 0 && !deleted) {
                    deleted = true;
                    try {
                        es.indices().delete(d -> d.index(index));
                    } catch (IOException e) {
                        throw new AssertionError(e);
                    }
                    spilledBeforeFailure = spillFiles().size();
                }
            }
        };
        DuplicateIdScanner scanner = DuplicateIdScanner.of(b -> b.client(es)
                .maxIdsInMemory(100)
                .pageSize(100)
                .slices(2)
                .listener(listener)
                .spillDirectory(spill));
        assertThatThrownBy(() -> scanner.scan(index))
                .isInstanceOf(RoutingException.class)
                .hasMessageContaining(index);
        assertThat(listener.deleted).isTrue();
        assertThat(listener.spilledBeforeFailure)
                .as("spill files while reading")
                .isEqualTo(DuplicateFinder.fanout(3000, 100));
        assertThat(listener.failed).hasSize(1);
        assertThat(listener.finished).isEmpty();
        assertThat(spill).as("spill files deleted after the failure").isEmptyDirectory();
    }

    // ---------------------------------------------------------------------------------------------------------

    private List<Path> spillFiles() {
        try (Stream<Path> files = Files.walk(spill)) {
            return files.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The orders index: {@value #DOCS} orders, six of them written again under other routing values. */
    private synchronized Orders orders() throws IOException {
        if (orders != null) {
            return orders;
        }
        String index = "dupscan-orders";
        createIndex(index, SHARDS);
        RoutingCalculator calc = RoutingClient.of(b -> b.client(es)).calculator(index);
        List<DocRef> docs = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            docs.add(DocRef.id("order-" + i).withRouting(i % 3 == 0 ? null : "tenant-" + i % 40));
        }
        // Four ids get one stray copy, two get two: each on a shard none of its other copies is on.
        Map<String, Integer> strays = new TreeMap<>(
                Map.of("order-7", 1, "order-12", 1, "order-123", 1, "order-2999", 1, "order-500", 2, "order-1001", 2));
        for (Map.Entry<String, Integer> e : strays.entrySet()) {
            DocRef original = docs.get(Integer.parseInt(e.getKey().substring("order-".length())));
            int home = calc.shard(original);
            for (int k = 1; k <= e.getValue(); k++) {
                String routing = calc.routingValuesForShard((home + k) % SHARDS, 1, "stray-" + k + "-")
                        .get(0);
                docs.add(DocRef.id(e.getKey()).withRouting(routing));
            }
        }
        Map<DocRef, long[]> written = bulk(index, docs);
        Map<DocRef, Integer> real = realShards(index, SHARDS, List.copyOf(strays.keySet()));

        List<DuplicateId> expected = new ArrayList<>();
        for (String id : strays.keySet()) { // TreeMap: the report's order (by id)
            List<DuplicateId.Copy> copies = new ArrayList<>();
            written.forEach((ref, seq) -> {
                if (ref.id().equals(id)) {
                    int shard = calc.shard(ref);
                    assertThat(real.get(ref)).as("where %s really is", ref).isEqualTo(shard);
                    copies.add(new DuplicateId.Copy(ref, shard, seq[0], seq[1]));
                }
            });
            assertThat(copies).hasSize(strays.get(id) + 1);
            copies.sort(Comparator.comparingInt(DuplicateId.Copy::shard));
            expected.add(new DuplicateId(index, id, copies));
        }
        orders = new Orders(index, docs.size(), expected);
        return orders;
    }

    record Orders(String index, long documents, List<DuplicateId> expected) {}

    private void createIndex(String index, int shards) throws IOException {
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> s.numberOfShards(String.valueOf(shards)).numberOfReplicas("0")));
    }

    /** Indexes the documents in one refreshed bulk; returns the {@code _seq_no} and {@code _primary_term} of each. */
    private Map<DocRef, long[]> bulk(String index, List<DocRef> docs) throws IOException {
        BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
        for (DocRef d : docs) {
            bulk.operations(op ->
                    op.index(i -> i.index(index).id(d.id()).routing(d.routing()).document(Map.of("n", 1))));
        }
        BulkResponse response = es.bulk(bulk.build());
        assertThat(response.errors()).as("bulk errors").isFalse();
        Map<DocRef, long[]> written = new LinkedHashMap<>();
        for (int i = 0; i < docs.size(); i++) {
            BulkResponseItem item = response.items().get(i);
            written.put(
                    DocRef.of(index, docs.get(i).id()).withRouting(docs.get(i).routing()),
                    new long[] {item.seqNo(), item.primaryTerm()});
        }
        return written;
    }

    /** Where the copies of these ids really are: one search per shard, restricted to it. */
    private Map<DocRef, Integer> realShards(String index, int shards, List<String> ids) throws IOException {
        Map<DocRef, Integer> where = new LinkedHashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            int s = shard;
            List<Hit<Void>> hits = es.search(
                            r -> r.index(index)
                                    .preference("_shards:" + s)
                                    .size(100)
                                    .source(src -> src.fetch(false))
                                    .query(q -> q.ids(i -> i.values(ids))),
                            Void.class)
                    .hits()
                    .hits();
            for (Hit<Void> hit : hits) {
                where.put(DocRef.of(index, hit.id()).withRouting(hit.routing()), s);
            }
        }
        return where;
    }

    /** The scan closed its point in time: no search context is left open on the index's shards. */
    private void assertNoOpenPointInTime(String index) throws IOException {
        JsonObject stats = RestCall.get("/" + index + "/_stats/search", Map.of())
                .send(es)
                .toJson()
                .asJsonObject();
        assertThat(stats.getJsonObject("_all")
                        .getJsonObject("total")
                        .getJsonObject("search")
                        .getJsonNumber("open_contexts")
                        .longValue())
                .as("open search contexts on %s", index)
                .isZero();
    }

    /** Records every listener call; the calls are serialized by the scan, possibly from different threads. */
    static class Recording implements DuplicateScanListener {
        volatile boolean deleted;
        volatile int spilledBeforeFailure;
        final List<String> started = new CopyOnWriteArrayList<>();
        final List<ScanProgress> progress = new CopyOnWriteArrayList<>();
        final List<DuplicateIdReport> finished = new CopyOnWriteArrayList<>();
        final List<RoutingException> failed = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(String index, long documents, int partitions, int slices) {
            started.add(index + " " + documents + " " + partitions + " " + slices);
        }

        @Override
        public void onProgress(ScanProgress p) {
            progress.add(p);
        }

        @Override
        public void onFinish(DuplicateIdReport report) {
            finished.add(report);
        }

        @Override
        public void onFailure(String index, RoutingException failure) {
            failed.add(failure);
        }

        /** Phases in order; within each, done never decreases and ends at the total. */
        void assertProgress(long documents, int partitions, int verified) {
            List<ScanProgress.Phase> order =
                    progress.stream().map(ScanProgress::phase).distinct().toList();
            assertThat(order)
                    .containsExactly(ScanProgress.Phase.READ, ScanProgress.Phase.COUNT, ScanProgress.Phase.VERIFY);
            Map<ScanProgress.Phase, Long> last = new LinkedHashMap<>();
            for (ScanProgress p : progress) {
                Long before = last.put(p.phase(), p.done());
                assertThat(p.done())
                        .as("%s", p)
                        .isGreaterThanOrEqualTo(before == null ? 0 : before)
                        .isLessThanOrEqualTo(p.total());
            }
            assertThat(Stream.of(ScanProgress.Phase.values())
                            .map(ph -> lastOf(ph).done())
                            .toList())
                    .containsExactly(documents, (long) partitions, (long) verified);
            for (ScanProgress.Phase ph : ScanProgress.Phase.values()) {
                assertThat(lastOf(ph).done()).isEqualTo(lastOf(ph).total());
                assertThat(lastOf(ph).fraction()).isEqualTo(1.0);
            }
            assertThat(lastOf(ScanProgress.Phase.READ).total()).isEqualTo(documents);
            if (documents > 0) {
                assertThat(progress.stream()
                                .filter(p -> p.phase() == ScanProgress.Phase.READ)
                                .count())
                        .as("one progress per page, and one before the first")
                        .isGreaterThan(1);
            }
        }

        private ScanProgress lastOf(ScanProgress.Phase phase) {
            ScanProgress found = null;
            for (ScanProgress p : progress) {
                if (p.phase() == phase) {
                    found = p;
                }
            }
            return found;
        }
    }
}
