package io.github.esrel.plugin.routing.it;

import static io.github.esrel.plugin.it.Http.enc;
import static io.github.esrel.plugin.it.Http.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.plugin.routing.TestIndices;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The endpoint against reality: documents are indexed into a real node, the shard each one really lives on
 * is found by searching every shard ({@code preference=_shards:N}), and the endpoint must name that shard for
 * every document, one by one and in a batch.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RoutingCalcIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().build();

    private static final long SEED = 0x5eed_002L;
    private static Http http;

    /** A document as indexed: id and routing (null = routed by id). */
    record Doc(String id, String routing) {}

    static Http http() {
        if (http == null) {
            http = new Http(cluster.httpUri());
        }
        return http;
    }

    private static String expectedFunction() {
        String[] v = cluster.version().split("[.-]");
        int major = Integer.parseInt(v[0]);
        int minor = Integer.parseInt(v[1]);
        return major > 9 || (major == 9 && minor >= 4) ? "modulo" : "legacy";
    }

    @Test
    @Order(1)
    void shouldAgreeWithRealityForDefaultRouting() {
        createIndex("plain", "{\"settings\": {\"number_of_shards\": 5, \"number_of_replicas\": 0}}");
        List<Doc> docs = docs(new Random(SEED), 1200, 0);
        bulk("plain", docs);
        JsonNode batch = assertAgreesWithReality("plain", 5, docs);
        assertThat(batch.get("routing_num_shards").asInt()).isEqualTo(640);
        assertThat(batch.get("routing_factor").asInt()).isEqualTo(128);
        assertThat(batch.get("routing_function").asText()).isEqualTo(expectedFunction());
        assertThat(batch.get("routing_required").asBoolean()).isFalse();
        assertThat(batch.get("warnings")).isEmpty();

        // The hypothetical endpoint with this index's parameters (the default function of this cluster) agrees too.
        Map<String, Integer> real = realShards("plain", 5);
        Http.Response hypothetical =
                http().post("/_routing_calc", json(Map.of("number_of_shards", 5, "docs", docBodies(docs))));
        assertThat(hypothetical.status()).as("%s", hypothetical).isEqualTo(200);
        assertThat(hypothetical.json().has("index")).isFalse();
        assertThat(hypothetical.get("routing_function").asText()).isEqualTo(expectedFunction());
        JsonNode results = hypothetical.get("results");
        for (int i = 0; i < docs.size(); i++) {
            assertThat(results.get(i).get("shard").asInt())
                    .as("doc %s", docs.get(i))
                    .isEqualTo(real.get(docs.get(i).id()));
        }
    }

    @Test
    @Order(2)
    void shouldAgreeWithRealityForCustomRouting() {
        createIndex("custom", "{\"settings\": {\"number_of_shards\": 4, \"number_of_replicas\": 0}}");
        List<Doc> docs = docs(new Random(SEED + 1), 1000, 50);
        bulk("custom", docs);
        assertAgreesWithReality("custom", 4, docs);
        assertRoutingOnlyMatchesSearchShards("custom", docs);
    }

    @Test
    @Order(3)
    void shouldAgreeWithRealityForAPartitionedIndex() {
        createIndex(
                "part",
                "{\"settings\": {\"number_of_shards\": 6, \"number_of_replicas\": 0, \"routing_partition_size\": 3},"
                        + " \"mappings\": {\"_routing\": {\"required\": true}}}");
        List<Doc> docs = docs(new Random(SEED + 2), 1000, 40);
        bulk("part", docs);
        JsonNode batch = assertAgreesWithReality("part", 6, docs);
        assertThat(batch.get("routing_partition_size").asInt()).isEqualTo(3);
        assertThat(batch.get("routing_required").asBoolean())
                .as("partitioned: a doc needs a routing")
                .isTrue();
        assertRoutingOnlyMatchesSearchShards("part", docs);

        Http.Response routingOnly =
                http().get("/part/_routing_calc?routing=" + enc(docs.get(0).routing()));
        assertThat(routingOnly.json().get("shard").isNull())
                .as("depends on the id: %s", routingOnly)
                .isTrue();
        if (expectedFunction().equals("legacy")) {
            // The pitfall the warning measures: on a legacy index, p=3 rarely reaches 3 shards.
            assertThat(batch.get("warnings").toString()).contains("routing_partition_size is 3, but");
        } else {
            assertThat(routingOnly.json().get("shards")).hasSize(3);
            assertThat(batch.get("warnings")).isEmpty();
        }
    }

    @Test
    @Order(4)
    void shouldAgreeWithRealityForSplitAndShrunkIndices() {
        createIndex("src", "{\"settings\": {\"number_of_shards\": 3, \"number_of_replicas\": 0}}");
        List<Doc> docs = docs(new Random(SEED + 3), 1000, 30);
        bulk("src", docs);
        assertAgreesWithReality("src", 3, docs);
        assertOk(http().put("/src/_settings", "{\"index.blocks.write\": true}"));
        assertOk(
                http().post(
                                "/src/_split/split",
                                "{\"settings\": {\"index.number_of_shards\": 6, \"index.number_of_replicas\": 0, \"index.blocks.write\": null}}"));
        waitGreen("split");
        forceMerge("split");
        JsonNode split = assertAgreesWithReality("split", 6, docs);
        assertThat(split.get("routing_num_shards").asInt())
                .as("kept from the source")
                .isEqualTo(clusterStateRoutingNumShards("split"));

        createIndex("wide", "{\"settings\": {\"number_of_shards\": 6, \"number_of_replicas\": 0}}");
        List<Doc> wideDocs = docs(new Random(SEED + 4), 1000, 0);
        bulk("wide", wideDocs);
        assertOk(http().put("/wide/_settings", "{\"index.blocks.write\": true}"));
        assertOk(
                http().post(
                                "/wide/_shrink/narrow",
                                "{\"settings\": {\"index.number_of_shards\": 2, \"index.number_of_replicas\": 0, \"index.blocks.write\": null}}"));
        waitGreen("narrow");
        forceMerge("narrow");
        JsonNode narrow = assertAgreesWithReality("narrow", 2, wideDocs);
        assertThat(narrow.get("routing_num_shards").asInt()).isEqualTo(clusterStateRoutingNumShards("narrow"));
        assertThat(narrow.get("routing_factor").asInt()).isEqualTo(clusterStateRoutingNumShards("narrow") / 2);
    }

    @Test
    @Order(5)
    void shouldApplyAliasRouting() {
        createIndex("aliased", "{\"settings\": {\"number_of_shards\": 5, \"number_of_replicas\": 0}}");
        assertOk(
                http().post(
                                "/_aliases",
                                "{\"actions\": [{\"add\": {\"index\": \"aliased\", \"alias\": \"tenant\", \"routing\": \"tenant-x\"}}]}"));
        // Indexed through the alias: Elasticsearch routes them with the alias's routing.
        StringBuilder bulk = new StringBuilder();
        for (int i = 0; i < 50; i++) {
            bulk.append("{\"index\": {\"_index\": \"tenant\", \"_id\": \"a")
                    .append(i)
                    .append("\"}}\n{\"n\": 1}\n");
        }
        Http.Response bulked = http().send("POST", "/_bulk?refresh=true", bulk.toString(), "application/x-ndjson");
        assertThat(bulked.get("errors").asBoolean()).as("%s", bulked).isFalse();
        Map<String, Integer> real = realShards("aliased", 5);
        for (int i = 0; i < 50; i++) {
            Http.Response r = http().get("/tenant/_routing_calc?id=a" + i);
            assertThat(r.status()).as("%s", r).isEqualTo(200);
            assertThat(r.get("index").asText()).isEqualTo("aliased");
            assertThat(r.get("routing").asText()).isEqualTo("tenant-x");
            assertThat(r.get("shard").asInt()).isEqualTo(real.get("a" + i));
        }
        Http.Response search = http().get("/tenant/_routing_calc");
        assertThat(search.status()).as("%s", search).isEqualTo(200);
        assertThat(search.get("shards")).hasSize(1);
        assertThat(search.get("shards").get(0).asInt()).isEqualTo(real.get("a0"));

        Http.Response conflict = http().get("/tenant/_routing_calc?id=a1&routing=other");
        assertError(conflict, 400, "illegal_argument_exception");
    }

    @Test
    @Order(6)
    void shouldReturnElasticsearchErrors() {
        createIndex(
                "req",
                "{\"settings\": {\"number_of_shards\": 2, \"number_of_replicas\": 0}, \"mappings\": {\"_routing\": {\"required\": true}}}");
        createIndex("other", "{\"settings\": {\"number_of_shards\": 1, \"number_of_replicas\": 0}}");
        assertOk(http().post(
                        "/_aliases",
                        "{\"actions\": [{\"add\": {\"indices\": [\"req\", \"other\"], \"alias\": \"two\"}}]}"));
        createIndex(
                "metrics",
                "{\"settings\": {\"index.mode\": \"time_series\", \"index.routing_path\": [\"host\"], \"number_of_shards\": 2,"
                        + " \"number_of_replicas\": 0}, \"mappings\": {\"properties\": {\"@timestamp\": {\"type\": \"date\"},"
                        + " \"host\": {\"type\": \"keyword\", \"time_series_dimension\": true}}}}");
        createIndex(
                "part2",
                "{\"settings\": {\"number_of_shards\": 4, \"number_of_replicas\": 0, \"routing_partition_size\": 2},"
                        + " \"mappings\": {\"_routing\": {\"required\": true}}}");

        assertError(http().get("/missing-index/_routing_calc?id=1"), 404, "index_not_found_exception");
        assertError(http().get("/missing-*/_routing_calc?id=1"), 404, "index_not_found_exception");
        assertThat(assertError(http().get("/part2/_routing_calc?id=1"), 400, "illegal_argument_exception"))
                .contains("routing is required for index [part2] because it is partitioned");
        assertThat(assertError(
                        http().post(
                                        "/part2/_routing_calc",
                                        "{\"docs\": [{\"id\": \"x1\"}, {\"id\": \"x2\", \"routing\": \"r\"}, {\"id\": \"x3\"}]}"),
                        400,
                        "illegal_argument_exception"))
                .contains("2 docs have none: ids [x1, x3]");
        assertThat(assertError(http().get("/req/_routing_calc?id=1"), 400, "illegal_argument_exception"))
                .contains("_routing.required");
        assertThat(assertError(http().get("/metrics/_routing_calc?id=1"), 400, "illegal_argument_exception"))
                .contains("the shard depends on the document source");
        assertThat(assertError(http().get("/two/_routing_calc?id=1"), 400, "illegal_argument_exception"))
                .contains("resolves to 2 indices [other, req]");
        assertError(http().get("/*/_routing_calc?id=1"), 400, "illegal_argument_exception");
        assertError(http().get("/other/_routing_calc"), 400, "illegal_argument_exception");
        assertThat(assertError(http().get("/other/_routing_calc?id=1&shard=2"), 400, "illegal_argument_exception"))
                .contains("unrecognized parameter");
        assertThat(assertError(
                        http().post("/_routing_calc", "{\"number_of_shards\": 0, \"docs\": [{\"id\": \"1\"}]}"),
                        400,
                        "illegal_argument_exception"))
                .contains("number_of_shards must be between 1 and 1024, got 0");
        assertThat(assertError(
                        http().post(
                                        "/_routing_calc",
                                        "{\"number_of_shards\": 5, \"routing_num_shards\": 7, \"docs\": [{\"id\": \"1\"}]}"),
                        400,
                        "action_request_validation_exception"))
                .contains("routing_num_shards must be a multiple of number_of_shards (5), got 7");
        assertThat(assertError(
                        http().post(
                                        "/_routing_calc",
                                        "{\"number_of_shards\": 5, \"index_version\": \"8.19.0\", \"routing_function\": \"modulo\", \"docs\": [{\"id\": \"1\"}]}"),
                        400,
                        "action_request_validation_exception"))
                .contains("contradicts index_version");
        assertError(
                http().post(
                                "/_routing_calc",
                                "{\"number_of_shards\": 5, \"routing_partition_size\": 640, \"docs\": [{\"id\": \"1\", \"routing\": \"r\"}]}"),
                400,
                "illegal_argument_exception");
        assertError(http().post("/other/_routing_calc", "{\"docs\": []}"), 400, "action_request_validation_exception");
        assertError(http().post("/other/_routing_calc", "{\"docs\": [{\"id\": 1}]}"), 400, "x_content_parse_exception");
        assertError(
                http().post("/other/_routing_calc", "{\"docs\": [{\"id\": \"1\", \"color\": \"red\"}]}"),
                400,
                "x_content_parse_exception");
    }

    @Test
    @Order(7)
    void shouldRefuseHostileInputWith4xx() {
        createIndex("target", "{\"settings\": {\"number_of_shards\": 3, \"number_of_replicas\": 0}}");
        Map<String, String[]> hostile = new LinkedHashMap<>();
        hostile.put("truncated json", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": \"1\""});
        hostile.put("not json", new String[] {"POST", "/target/_routing_calc", "docs=1"});
        hostile.put("array body", new String[] {"POST", "/target/_routing_calc", "[{\"id\": \"1\"}]"});
        hostile.put("string body", new String[] {"POST", "/target/_routing_calc", "\"docs\""});
        hostile.put("number body", new String[] {"POST", "/_routing_calc", "12345"});
        hostile.put("docs object", new String[] {"POST", "/target/_routing_calc", "{\"docs\": {\"id\": \"1\"}}"});
        hostile.put("docs of strings", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [\"1\", \"2\"]}"});
        hostile.put("nested arrays", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [[{\"id\": \"1\"}]]}"});
        hostile.put("null doc", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [null]}"});
        hostile.put("numeric id", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": 12}]}"});
        hostile.put(
                "object id", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": {\"$gt\": \"\"}}]}"});
        hostile.put("empty id", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": \"\"}]}"});
        hostile.put("missing id", new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"routing\": \"a\"}]}"});
        hostile.put("id too long", new String[] {"GET", "/target/_routing_calc?id=" + "x".repeat(600), null});
        hostile.put("empty id param", new String[] {"GET", "/target/_routing_calc?id=", null});
        hostile.put(
                "duplicate keys",
                new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": \"1\", \"id\": \"2\"}]}"});
        hostile.put(
                "trailing garbage",
                new String[] {"POST", "/target/_routing_calc", "{\"docs\": [{\"id\": \"1\"}]} trailing"});
        hostile.put(
                "body and params",
                new String[] {"POST", "/target/_routing_calc?id=1", "{\"docs\": [{\"id\": \"1\"}]}"});
        hostile.put("huge shard count", new String[] {
            "POST", "/_routing_calc", "{\"number_of_shards\": 99999999999999999999999, \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("int overflow", new String[] {
            "POST", "/_routing_calc", "{\"number_of_shards\": 2147483648, \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put(
                "negative shards",
                new String[] {"POST", "/_routing_calc", "{\"number_of_shards\": -3, \"docs\": [{\"id\": \"1\"}]}"});
        hostile.put(
                "fractional shards",
                new String[] {"POST", "/_routing_calc", "{\"number_of_shards\": 2.5, \"docs\": [{\"id\": \"1\"}]}"});
        hostile.put(
                "string shards",
                new String[] {"POST", "/_routing_calc", "{\"number_of_shards\": \"5\", \"docs\": [{\"id\": \"1\"}]}"});
        hostile.put("negative routing shards", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"routing_num_shards\": -640, \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("zero partition", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"routing_partition_size\": 0, \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("bad version", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"index_version\": \"latest\", \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("ancient version", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"index_version\": \"6.8.0\", \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("future major", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"index_version\": \"99.0.0\", \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("unknown function", new String[] {
            "POST",
            "/_routing_calc",
            "{\"number_of_shards\": 5, \"routing_function\": \"sha1\", \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("missing shards", new String[] {"POST", "/_routing_calc", "{\"docs\": [{\"id\": \"1\"}]}"});
        hostile.put("missing docs", new String[] {"POST", "/_routing_calc", "{\"number_of_shards\": 5}"});
        hostile.put("no body", new String[] {"POST", "/_routing_calc", null});
        hostile.put("unknown top field", new String[] {
            "POST", "/_routing_calc", "{\"number_of_shards\": 5, \"shards\": 1, \"docs\": [{\"id\": \"1\"}]}"
        });
        hostile.put("unknown param", new String[] {"GET", "/target/_routing_calc?id=1&preference=_local", null});
        hostile.put("bad index name", new String[] {"GET", "/_bad_/_routing_calc?id=1", null});
        hostile.put("deeply nested", new String[] {
            "POST", "/target/_routing_calc", "{\"docs\": " + "[".repeat(5000) + "]".repeat(5000) + "}"
        });
        hostile.put("wrong content type", new String[] {"POST", "/target/_routing_calc", "<docs><id>1</id></docs>"});

        for (Map.Entry<String, String[]> e : hostile.entrySet()) {
            String[] r = e.getValue();
            String contentType = e.getKey().equals("wrong content type") ? "application/xml" : "application/json";
            Http.Response response = http().send(r[0], r[1], r[2], contentType);
            assertThat(response.status()).as("%s: %s", e.getKey(), response).isBetween(400, 499);
            if (response.status() != 406) {
                assertThat(response.json().path("status").asInt())
                        .as("%s: %s", e.getKey(), response)
                        .isEqualTo(response.status());
                assertThat(response.json().path("error").isObject())
                        .as("%s: %s", e.getKey(), response)
                        .isTrue();
                assertThat(response.errorType())
                        .as("%s: %s", e.getKey(), response)
                        .isNotBlank();
            }
        }
        assertThat(hostile).hasSizeGreaterThanOrEqualTo(20);
        // The node is still fine afterwards.
        assertThat(http().get("/target/_routing_calc?id=1").status()).isEqualTo(200);
    }

    @Test
    @Order(8)
    void shouldWarnAboutDuplicateIdsAndMixedRouting() {
        createIndex("dups", "{\"settings\": {\"number_of_shards\": 5, \"number_of_replicas\": 0}}");
        // Seed 002: the same id with routings abc and xyz. Find a routing that really separates them here.
        String routing = null;
        for (int i = 0; routing == null; i++) {
            Http.Response a = http().get("/dups/_routing_calc?id=123&routing=abc");
            Http.Response b = http().get("/dups/_routing_calc?id=123&routing=xyz" + i);
            if (a.get("shard").asInt() != b.get("shard").asInt()) {
                routing = "xyz" + i;
            }
        }
        Http.Response r = http().post(
                        "/dups/_routing_calc",
                        "{\"docs\": [{\"id\": \"123\", \"routing\": \"abc\"}, {\"id\": \"123\", \"routing\": \""
                                + routing + "\"}, {\"id\": \"9\"}]}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.get("warnings").toString())
                .contains("[123] with routing [abc]")
                .contains("2 of 3 docs have a routing and 1 do not");
        // Reality: both writes succeed and the index holds two documents with id 123.
        String bulk = "{\"index\": {\"_index\": \"dups\", \"_id\": \"123\", \"routing\": \"abc\"}}\n{\"n\": 1}\n"
                + "{\"index\": {\"_index\": \"dups\", \"_id\": \"123\", \"routing\": \"" + routing
                + "\"}}\n{\"n\": 2}\n";
        assertThat(http().send("POST", "/_bulk?refresh=true", bulk, "application/x-ndjson")
                        .get("errors")
                        .asBoolean())
                .isFalse();
        assertThat(http().get("/dups/_count").get("count").asInt()).isEqualTo(2);
    }

    @Test
    @Order(9)
    void shouldHandleABenchmarkSizedBatchAndRefuseOneOverTheLimit() {
        createIndex("big", "{\"settings\": {\"number_of_shards\": 7, \"number_of_replicas\": 0}}");
        List<Map<String, String>> docs = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            docs.add(Map.of("id", "id-" + i));
        }
        Http.Response ok = http().post("/big/_routing_calc", json(Map.of("docs", docs)));
        assertThat(ok.status()).as("%s", ok).isEqualTo(200);
        assertThat(ok.get("results")).hasSize(100_000);
        int sum = 0;
        for (JsonNode n : ok.get("distribution")) {
            sum += n.asInt();
        }
        assertThat(sum).isEqualTo(100_000);
        assertThat(ok.get("skew").asDouble()).isBetween(1.0, 1.1);

        docs.add(Map.of("id", "one-too-many"));
        Http.Response tooMany = http().post("/big/_routing_calc", json(Map.of("docs", docs)));
        assertThat(assertError(tooMany, 400, "illegal_argument_exception"))
                .contains("at most 100000")
                .contains("esrel.routing.max_batch_docs");
        Http.Response tooManyHypothetical =
                http().post("/_routing_calc", json(Map.of("number_of_shards", 2, "docs", docs)));
        assertError(tooManyHypothetical, 400, "illegal_argument_exception");
    }

    // ---- helpers ----

    /** Ids of every kind (ASCII, accents, CJK, emoji, any valid code point) that Elasticsearch accepts as _id. */
    static List<Doc> docs(Random random, int count, int routingValues) {
        List<String> routings = new ArrayList<>();
        for (int i = 0; i < routingValues; i++) {
            routings.add(validId(random));
        }
        Set<String> ids =
                new LinkedHashSet<>(List.of("a b", "a+b", "a/b", "a,b", "%41", "?x=1&y", "ü", "中文", "😀", "\t", "#1"));
        while (ids.size() < count) {
            ids.add(validId(random));
        }
        List<Doc> docs = new ArrayList<>();
        for (String id : ids) {
            docs.add(new Doc(id, routings.isEmpty() ? null : routings.get(random.nextInt(routings.size()))));
        }
        return docs;
    }

    private static String validId(Random random) {
        while (true) {
            String id = TestIndices.randomId(random);
            byte[] utf8 = id.getBytes(StandardCharsets.UTF_8);
            // Lone surrogates do not survive UTF-8 (the JSON body), and Elasticsearch refuses ids over 512 bytes.
            if (utf8.length <= 512
                    && new String(utf8, StandardCharsets.UTF_8).equals(id)
                    && id.startsWith("_") == false) {
                return id;
            }
        }
    }

    private static List<Map<String, String>> docBodies(List<Doc> docs) {
        List<Map<String, String>> bodies = new ArrayList<>();
        for (Doc d : docs) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("id", d.id());
            if (d.routing() != null) {
                m.put("routing", d.routing());
            }
            bodies.add(m);
        }
        return bodies;
    }

    /** Checks the single GET and the batch POST against the shard each doc really lives on; returns the batch body. */
    private static JsonNode assertAgreesWithReality(String index, int shards, List<Doc> docs) {
        Map<String, Integer> real = realShards(index, shards);
        assertThat(real).as("every doc found on exactly one shard").hasSize(docs.size());

        Http.Response batch = http().post("/" + index + "/_routing_calc", json(Map.of("docs", docBodies(docs))));
        assertThat(batch.status()).as("%s", batch).isEqualTo(200);
        assertThat(batch.get("index").asText()).isEqualTo(index);
        assertThat(batch.get("number_of_shards").asInt()).isEqualTo(shards);
        assertThat(batch.get("routing_function").asText()).isEqualTo(expectedFunction());
        JsonNode results = batch.get("results");
        assertThat(results).hasSize(docs.size());
        int[] distribution = new int[shards];
        for (int i = 0; i < docs.size(); i++) {
            Doc doc = docs.get(i);
            assertThat(results.get(i).get("id").asText()).isEqualTo(doc.id());
            assertThat(results.get(i).get("shard").asInt())
                    .as("batch: %s in %s", doc, index)
                    .isEqualTo(real.get(doc.id()));
            distribution[real.get(doc.id())]++;
        }
        for (int s = 0; s < shards; s++) {
            assertThat(batch.get("distribution").get(s).asInt()).isEqualTo(distribution[s]);
        }

        for (Doc doc : docs) {
            String query = "?id=" + enc(doc.id()) + (doc.routing() == null ? "" : "&routing=" + enc(doc.routing()));
            Http.Response single = http().get("/" + index + "/_routing_calc" + query);
            assertThat(single.status()).as("%s", single).isEqualTo(200);
            assertThat(single.get("id").asText()).isEqualTo(doc.id());
            assertThat(single.get("shard").asInt())
                    .as("single: %s in %s", doc, index)
                    .isEqualTo(real.get(doc.id()));
        }
        return batch.json();
    }

    /** For every routing value: the endpoint's shards are the ones _search_shards reports, and hold the docs. */
    private static void assertRoutingOnlyMatchesSearchShards(String index, List<Doc> docs) {
        Map<String, Integer> real = realShards(index, -1);
        Map<String, Set<Integer>> docShardsByRouting = new HashMap<>();
        for (Doc d : docs) {
            docShardsByRouting
                    .computeIfAbsent(d.routing(), k -> new TreeSet<>())
                    .add(real.get(d.id()));
        }
        for (Map.Entry<String, Set<Integer>> e : docShardsByRouting.entrySet()) {
            Http.Response calc = http().get("/" + index + "/_routing_calc?routing=" + enc(e.getKey()));
            assertThat(calc.status()).as("%s", calc).isEqualTo(200);
            Set<Integer> shards = new TreeSet<>();
            calc.get("shards").forEach(n -> shards.add(n.asInt()));
            Http.Response searchShards = http().get("/" + index + "/_search_shards?routing=" + enc(e.getKey()));
            Set<Integer> expected = new TreeSet<>();
            searchShards
                    .get("shards")
                    .forEach(group -> expected.add(group.get(0).get("shard").asInt()));
            assertThat(shards).as("routing %s", e.getKey()).isEqualTo(expected).containsAll(e.getValue());
        }
    }

    private static Map<String, Integer> realShards(String index, int shardsOrUnknown) {
        int shards = shardsOrUnknown > 0
                ? shardsOrUnknown
                : http().get("/" + index + "/_settings")
                        .json()
                        .path(index)
                        .path("settings")
                        .path("index")
                        .path("number_of_shards")
                        .asInt();
        Map<String, Integer> real = new HashMap<>();
        for (int s = 0; s < shards; s++) {
            Http.Response r = http().post(
                            "/" + index + "/_search?preference=_shards:" + s,
                            "{\"size\": 10000, \"_source\": false, \"query\": {\"match_all\": {}}}");
            assertThat(r.status()).as("%s", r).isEqualTo(200);
            for (JsonNode hit : r.get("hits").get("hits")) {
                Integer previous = real.put(hit.get("_id").asText(), s);
                assertThat(previous).as("id %s on two shards", hit.get("_id")).isNull();
            }
        }
        return real;
    }

    private static void bulk(String index, List<Doc> docs) {
        StringBuilder body = new StringBuilder();
        for (Doc d : docs) {
            Map<String, Object> action = new LinkedHashMap<>();
            action.put("_index", index);
            action.put("_id", d.id());
            if (d.routing() != null) {
                action.put("routing", d.routing());
            }
            body.append(json(Map.of("index", action))).append('\n').append("{\"n\": 1}\n");
        }
        Http.Response r = http().send("POST", "/_bulk?refresh=true", body.toString(), "application/x-ndjson");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        assertThat(r.get("errors").asBoolean()).as("%s", r).isFalse();
    }

    private static void createIndex(String name, String body) {
        assertOk(http().put("/" + name, body));
        waitGreen(name);
    }

    private static void waitGreen(String name) {
        Http.Response health = http().get("/_cluster/health/" + name + "?wait_for_status=green&timeout=60s");
        assertThat(health.get("status").asText()).as("%s", health).isEqualTo("green");
    }

    private static void forceMerge(String name) {
        // Split and shrink copy segments with hard links; the docs that moved away are only deleted marks
        // until merged. Searches already skip them; merging makes that certain.
        assertOk(http().post("/" + name + "/_forcemerge?max_num_segments=1", null));
        assertOk(http().post("/" + name + "/_refresh", null));
    }

    private static int clusterStateRoutingNumShards(String index) {
        Http.Response state = http().get("/_cluster/state/metadata/" + index);
        return state.json()
                .path("metadata")
                .path("indices")
                .path(index)
                .path("routing_num_shards")
                .asInt();
    }

    private static void assertOk(Http.Response r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    /** Checks an Elasticsearch error body and returns its reason (with causes). */
    private static String assertError(Http.Response r, int status, String type) {
        assertThat(r.status()).as("%s", r).isEqualTo(status);
        assertThat(r.json().path("status").asInt()).as("%s", r).isEqualTo(status);
        assertThat(r.errorType()).as("%s", r).isEqualTo(type);
        return r.json().path("error").toString();
    }
}
