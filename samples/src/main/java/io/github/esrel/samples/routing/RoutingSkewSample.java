package io.github.esrel.samples.routing;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.json.JsonData;
import io.github.esrel.doc.DocRef;
import io.github.esrel.routing.Distribution;
import io.github.esrel.routing.DuplicateId;
import io.github.esrel.routing.DuplicateIdReport;
import io.github.esrel.routing.DuplicateIdScanner;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.routing.RoutingFunction;
import io.github.esrel.routing.RoutingResult;
import io.github.esrel.routing.RoutingSpec;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Seed 002 (the routing API): default routing spreads evenly, one tenant's routing value skews a
 * shard, {@code routing_partition_size} spreads it (and where it does not), computed routing values
 * put the big tenants on different shards, and the same {@code _id} with two routings lives twice:
 * the duplicate-id scan finds it, the stray copy is deleted with its own routing, and a second scan is
 * clean. Every distribution is printed twice: as esrel computes it and as the shards really hold it.
 */
public final class RoutingSkewSample extends Sample {

    private static final int SHARDS = 5;
    private static final int DOCS = 10_000;

    /** Creates the sample. */
    public RoutingSkewSample() {
        super(
                "routing",
                "Shard routing: even spread, tenant skew, routing_partition_size, computed routing, duplicate _id");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws IOException {
        RoutingClient routing = RoutingClient.of(b -> b.client(es));

        out.println("\n1. Default routing: the _id is hashed, so 10,000 orders spread evenly over 5 shards.");
        List<DocRef> byId = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            byId.add(DocRef.id("order-" + i));
        }
        show(es, routing, "orders-by-id", Map.of(), byId, out);

        out.println(
                "\n2. Custom routing by tenant: half the orders belong to one tenant, so one shard holds half the data.");
        List<DocRef> byTenant = tenantDocs();
        show(es, routing, "orders-by-tenant", Map.of(), byTenant, out);

        out.println(
                "\n3. index.routing_partition_size=3: a routing value now maps to 3 shards (hash(routing) + hash(_id) % 3).");
        RoutingSpec partitioned =
                show(es, routing, "orders-partitioned", Map.of("routing_partition_size", "3"), byTenant, out);
        RoutingSpec legacy = RoutingSpec.of(
                b -> b.numberOfShards(SHARDS).routingPartitionSize(3).function(RoutingFunction.LEGACY));
        Distribution onLegacy = RoutingCalculator.of(legacy).distribution(byTenant);
        out.printf(
                "   This index uses the %s function. On an index created before 9.4 (legacy function, routing_num_shards %d,"
                        + " routing_factor %d)%n   the offsets 0..2 rarely cross a routing_factor boundary, so the same data would look like this:%n",
                partitioned.function(), legacy.routingNumShards(), legacy.routingFactor());
        Table t = Table.of("shard", "docs (legacy index)", "");
        for (int s = 0; s < SHARDS; s++) {
            t.row(s, onLegacy.count(s), Table.bar(onLegacy.count(s), onLegacy.max(), 40));
        }
        t.print(out);
        out.printf(
                "   skew %.2f: routing_partition_size barely spreads data on pre-9.4 indices with default routing shards.%n",
                onLegacy.skew());

        out.println("\n4. Computed routing values: give each big tenant a routing value that lands on its own shard.");
        computedRouting(es, routing, out);

        out.println(
                "\n5. The same _id indexed with two routing values lives twice (ids are unique per shard, not per index).");
        duplicateId(es, routing, out);

        out.println("\n6. Finding such ids in a whole index, and removing the stray copy.");
        scanAndFix(es, out);
    }

    /** Indexes the docs, then prints per shard what esrel computed next to what the shard really holds. */
    private static RoutingSpec show(
            ElasticsearchClient es,
            RoutingClient routing,
            String index,
            Map<String, String> settings,
            List<DocRef> docs,
            PrintStream out)
            throws IOException {
        createIndex(es, index, settings);
        bulk(es, index, docs);
        RoutingResult computed = routing.calculate(index, docs);
        long[] real = realCounts(es, index, SHARDS);
        if (!Arrays.equals(real, computed.distribution().counts())) {
            throw new IllegalStateException(
                    "esrel computed " + computed.distribution() + " but the shards hold " + Arrays.toString(real));
        }
        Table t = Table.of("shard", "docs (real)", "docs (esrel)", "");
        long max = Arrays.stream(real).max().orElse(0);
        for (int s = 0; s < real.length; s++) {
            t.row(s, real[s], computed.distribution().count(s), Table.bar(real[s], max, 40));
        }
        t.print(out);
        out.printf(
                "   skew (max/mean) %.2f, %s function%s%n",
                computed.distribution().skew(),
                computed.spec().function(),
                computed.computedByServer() ? ", computed by the esrel plugin with the server's routing code" : "");
        computed.warnings().forEach(w -> out.println("   plugin warning: " + w));
        return computed.spec();
    }

    private static void computedRouting(ElasticsearchClient es, RoutingClient routing, PrintStream out)
            throws IOException {
        createIndex(es, "orders-placed", Map.of());
        RoutingCalculator calc = routing.calculator("orders-placed");
        List<String> bigTenants = List.of("acme", "globex", "initech", "umbrella", "hooli");
        Table t = Table.of("tenant", "routing = name: shard", "computed routing value", "shard");
        List<DocRef> docs = new ArrayList<>();
        int[] naive = new int[SHARDS];
        for (int i = 0; i < bigTenants.size(); i++) {
            String tenant = bigTenants.get(i);
            String value = calc.routingValuesForShard(i, 1, tenant + "-").get(0);
            int naiveShard = calc.shard(DocRef.id("x").withRouting(tenant));
            naive[naiveShard]++;
            t.row(tenant, naiveShard, value, calc.shard(DocRef.id("x").withRouting(value)));
            for (int n = 0; n < 1000; n++) {
                docs.add(DocRef.id(tenant + "-order-" + n).withRouting(value));
            }
        }
        t.print(out);
        bulk(es, "orders-placed", docs);
        long[] real = realCounts(es, "orders-placed", SHARDS);
        out.printf(
                "   routing by name puts the 5 tenants on %d distinct shards; computed values: real docs per shard %s%n",
                Arrays.stream(naive).filter(c -> c > 0).count(), Arrays.toString(real));
        if (Arrays.stream(real).anyMatch(c -> c != 1000)) {
            throw new IllegalStateException(
                    "computed routing values did not place one tenant per shard: " + Arrays.toString(real));
        }
    }

    private static void duplicateId(ElasticsearchClient es, RoutingClient routing, PrintStream out) throws IOException {
        createIndex(es, "routing-test", Map.of());
        RoutingCalculator calc = routing.calculator("routing-test");
        String onShard0 = calc.routingValuesForShard(0, 1, "abc-").get(0);
        String onShard1 = calc.routingValuesForShard(1, 1, "xyz-").get(0);
        es.index(i -> i.index("routing-test")
                .id("123")
                .routing(onShard0)
                .document(Map.of("name", "zhangsan"))
                .refresh(Refresh.True));
        es.index(i -> i.index("routing-test")
                .id("123")
                .routing(onShard1)
                .document(Map.of("name", "lisi"))
                .refresh(Refresh.True));
        long copies = es.count(c -> c.index("routing-test").query(q -> q.ids(ids -> ids.values("123"))))
                .count();
        GetResponse<Void> noRouting = es.get(g -> g.index("routing-test").id("123"), Void.class);
        Table t = Table.of("write", "routing", "shard (esrel)");
        t.row(
                "PUT routing-test/_doc/123 {zhangsan}",
                onShard0,
                calc.shard(DocRef.id("123").withRouting(onShard0)));
        t.row(
                "PUT routing-test/_doc/123 {lisi}",
                onShard1,
                calc.shard(DocRef.id("123").withRouting(onShard1)));
        t.print(out);
        out.printf(
                "   search for _id 123 finds %d documents; GET _doc/123 without routing looks on shard %d: found=%s%n",
                copies, calc.shard("123"), noRouting.found());
        if (copies != 2) {
            throw new IllegalStateException("expected the document to exist twice, found " + copies);
        }
        out.println("   Lesson: always read, update and delete a routed document with the routing it was written with"
                + " (or set _routing.required: true in the mapping).");
    }

    /**
     * The duplicate-id scan over section 5's index, with 10,000 more orders in it: it reads every document's
     * {@code _id} through a point in time and reports the id that lives twice, with each copy's routing, shard
     * and {@code _seq_no}. The application reads order 123 with routing "abc-…", so the other copy is the
     * stray: deleted by id with <em>its</em> routing (and its {@code _seq_no}), the good copy stays.
     */
    private static void scanAndFix(ElasticsearchClient es, PrintStream out) throws IOException {
        List<DocRef> orders = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
            orders.add(DocRef.id("order-" + i).withRouting("tenant-" + i % 20));
        }
        bulk(es, "routing-test", orders);
        DuplicateIdScanner scanner = DuplicateIdScanner.of(b -> b.client(es));
        DuplicateIdReport report = scanner.scan("routing-test");
        out.printf(
                "   scan: %,d documents read in %d ms, %d duplicated id(s), %d extra cop%s%n",
                report.documents(),
                report.elapsed().toMillis(),
                report.duplicatedIds(),
                report.extraCopies(),
                report.extraCopies() == 1 ? "y" : "ies");
        Table t = Table.of("_id", "routing", "shard", "_seq_no", "remove this copy with");
        for (DuplicateId d : report.duplicates()) {
            for (DuplicateId.Copy c : d.copies()) {
                t.row(d.id(), c.routing(), c.shard(), c.seqNo(), c.deleteRequest());
            }
        }
        t.print(out);
        if (report.duplicatedIds() != 1 || !report.duplicates().get(0).id().equals("123")) {
            throw new IllegalStateException("expected the scan to find _id 123 twice: " + report);
        }

        // Which copy is stray is the application's decision: here, the one it does not read with.
        DuplicateId dup = report.duplicates().get(0);
        String kept = dup.routings().stream()
                .filter(r -> r != null && r.startsWith("abc-"))
                .findFirst()
                .orElseThrow();
        DuplicateId.Copy stray = dup.copies().stream()
                .filter(c -> !kept.equals(c.routing()))
                .findFirst()
                .orElseThrow();
        es.delete(d -> d.index(stray.doc().index())
                .id(stray.doc().id())
                .routing(stray.doc().routing())
                .ifSeqNo(stray.seqNo())
                .ifPrimaryTerm(stray.primaryTerm())
                .refresh(Refresh.True));
        out.printf("   %s   (the copy the application does not read with)%n", stray.deleteRequest());
        DuplicateIdReport after = scanner.scan("routing-test");
        GetResponse<Void> good = es.get(g -> g.index("routing-test").id("123").routing(kept), Void.class);
        out.printf(
                "   scan again: %,d documents, %d duplicated ids; GET routing-test/_doc/123?routing=%s: found=%s%n",
                after.documents(), after.duplicatedIds(), kept, good.found());
        if (!after.clean() || !good.found()) {
            throw new IllegalStateException("the stray copy was not removed cleanly: " + after);
        }
    }

    /** 10,000 orders: half for "acme", the rest spread over 20 small tenants. */
    private static List<DocRef> tenantDocs() {
        SplittableRandom random = new SplittableRandom(2);
        List<DocRef> docs = new ArrayList<>(DOCS);
        for (int i = 0; i < DOCS; i++) {
            String tenant = i % 2 == 0 ? "acme" : "tenant-" + random.nextInt(20);
            docs.add(DocRef.id("order-" + i).withRouting(tenant));
        }
        return docs;
    }

    private static void createIndex(ElasticsearchClient es, String index, Map<String, String> settings)
            throws IOException {
        Indices.deleteIfExist(es, index);
        // Elasticsearch only accepts a routing partition when the mapping requires routing.
        boolean partitioned = settings.containsKey("routing_partition_size");
        es.indices()
                .create(c -> c.index(index)
                        .settings(s -> {
                            settings.forEach((k, v) -> s.otherSettings(k, JsonData.of(v)));
                            return s.numberOfShards(String.valueOf(SHARDS)).numberOfReplicas("0");
                        })
                        .mappings(m -> m.routing(r -> r.required(partitioned))));
    }

    private static void bulk(ElasticsearchClient es, String index, List<DocRef> docs) throws IOException {
        for (int from = 0; from < docs.size(); from += 5000) {
            BulkRequest.Builder b = new BulkRequest.Builder().refresh(Refresh.True);
            for (DocRef d : docs.subList(from, Math.min(from + 5000, docs.size()))) {
                b.operations(op -> op.index(
                        i -> i.index(index).id(d.id()).routing(d.routing()).document(Map.of("id", d.id()))));
            }
            BulkResponse response = es.bulk(b.build());
            if (response.errors()) {
                throw new IllegalStateException("bulk indexing into " + index + " failed: "
                        + response.items().stream()
                                .filter(i -> i.error() != null)
                                .map(i -> i.error().reason())
                                .findFirst()
                                .orElse("?"));
            }
        }
    }

    /** Documents each shard really holds: a count restricted to that shard with preference=_shards:N. */
    static long[] realCounts(ElasticsearchClient es, String index, int shards) throws IOException {
        long[] counts = new long[shards];
        for (int s = 0; s < shards; s++) {
            final int shard = s;
            counts[s] =
                    es.count(c -> c.index(index).preference("_shards:" + shard)).count();
        }
        return counts;
    }
}
