package io.github.esrel.plugin.lock.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.github.esrel.plugin.it.Http;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * What tree locks refuse on a real 3-node cluster, and that a refusal changes nothing: document and index APIs on the
 * lock index, leases and waits over the node's maximum, grants beyond the table size, more than 50 kinds of hostile
 * input, and a grant bound to a user without security.
 */
@EsrelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class TreeLockRefusalsIT extends AbstractTreeLockIT {

    @Cluster
    static final EsCluster cluster = threeNodes();

    @Test
    @Order(1)
    void shouldKeepTheLockIndexAwayFromDocumentApis() {
        createIndex("sys");
        JsonNode g = grant("sys", "/s", "exclusive", "w1");
        List<Http.Response> attempts = List.of(
                http().get("/" + LOCK_INDEX + "/_doc/sys"),
                http().put(
                                "/" + LOCK_INDEX + "/_doc/sys",
                                "{\"namespace\": \"sys\", \"last_token\": 1, \"grants\": []}"),
                http().post("/" + LOCK_INDEX + "/_doc", "{\"x\": 1}"),
                http().post("/" + LOCK_INDEX + "/_update/sys", "{\"doc\": {\"grants\": []}}"),
                http().send("DELETE", "/" + LOCK_INDEX + "/_doc/sys", null, "application/json"),
                http().send("DELETE", "/" + LOCK_INDEX, null, "application/json"),
                http().post("/" + LOCK_INDEX + "/_search", "{}"),
                http().post("/" + LOCK_INDEX + "/_close", null),
                http().put("/" + LOCK_INDEX + "/_settings", "{\"index\": {\"number_of_replicas\": 2}}"),
                http().send(
                                "POST",
                                "/_bulk",
                                "{\"index\": {\"_index\": \"" + LOCK_INDEX
                                        + "\", \"_id\": \"sys\"}}\n{\"grants\": []}\n",
                                "application/x-ndjson"),
                http().send(
                                "POST",
                                "/_bulk",
                                "{\"delete\": {\"_index\": \"" + LOCK_INDEX + "\", \"_id\": \"sys\"}}\n",
                                "application/x-ndjson"),
                http().post("/" + LOCK_INDEX + "/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"));
        for (Http.Response r : attempts) {
            if (r.status() == 200) {
                // _bulk answers 200 with per-item errors.
                assertThat(r.get("errors").asBoolean()).as("%s", r).isTrue();
                assertThat(r.get("items").get(0).elements().next().get("status").asInt())
                        .as("%s", r)
                        .isEqualTo(400);
            } else {
                assertThat(r.status()).as("%s", r).isBetween(400, 499);
            }
            assertThat(r.raw()).as("%s", r).doesNotContain("\"grants\":[{");
        }
        // Nothing changed: the lock is still held, with its token.
        JsonNode held =
                locks().list("sys", null).get("locks").get(0).get("holders").get(0);
        assertThat(held.get("token").asLong()).isEqualTo(g.get("token").asLong());
        assertConflicts(locks().acquire("sys", "/s", "exclusive", "w2"), g);
        // It is a hidden system index with one primary and up to one replica.
        JsonNode settings = http().get(
                        "/_cluster/state/metadata/" + LOCK_INDEX + "?filter_path=**.settings.index,**.system")
                .json();
        JsonNode index = settings.get("metadata").get("indices").get(LOCK_INDEX);
        assertThat(index.get("system").asBoolean()).isTrue();
        assertThat(index.get("settings").get("index").get("hidden").asText()).isEqualTo("true");
        assertThat(index.get("settings")
                        .get("index")
                        .get("auto_expand_replicas")
                        .asText())
                .isEqualTo("0-1");
        assertThat(index.get("settings").get("index").get("number_of_shards").asText())
                .isEqualTo("1");
        release("sys", g);
    }

    @Test
    @Order(2)
    void shouldRefuseLeasesAndWaitsOverTheNodeMaximum() {
        createIndex("limits");
        assertThat(assertError(
                        locks().acquire("limits", "/a", "exclusive", "w", "2h", null),
                        400,
                        "illegal_argument_exception"))
                .contains("ttl [2h] is longer than the maximum [1h]")
                .contains("esrel.treelock.max_ttl");
        assertThat(assertError(
                        locks().acquire("limits", "/a", "exclusive", "w", null, "6m"),
                        400,
                        "illegal_argument_exception"))
                .contains("wait [6m] is longer than the maximum [5m]")
                .contains("esrel.treelock.max_wait");
        JsonNode g = granted(locks().acquire("limits", "/a", "exclusive", "w", "1h", "5m"));
        assertThat(assertError(
                        locks().renew("limits", "/a", "w", g.get("token").asLong(), "61m"),
                        400,
                        "illegal_argument_exception"))
                .contains("longer than the maximum");
        release("limits", g);
        try {
            putSetting("esrel.treelock.max_ttl", "\"5s\"");
            assertError(
                    locks().acquire("limits", "/a", "exclusive", "w", "6s", null), 400, "illegal_argument_exception");
            // The default lease (60 s) is capped by a shorter maximum.
            JsonNode capped = granted(locks().acquire("limits", "/a", "exclusive", "w"));
            assertThat(capped.get("expires_at_millis").asLong() - System.currentTimeMillis())
                    .isLessThanOrEqualTo(5_000L);
            release("limits", capped);
            assertThat(http().put("/_cluster/settings", "{\"persistent\": {\"esrel.treelock.max_ttl\": \"0s\"}}")
                            .status())
                    .isEqualTo(400);
        } finally {
            putSetting("esrel.treelock.max_ttl", "null");
        }
    }

    @Test
    @Order(3)
    void shouldRefuseGrantsBeyondTheTableSizeWith429() {
        createIndex("full");
        try {
            putSetting("esrel.treelock.max_locks_per_index", "3");
            List<JsonNode> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                held.add(grant("full", "/f" + i, "shared", "w"));
            }
            assertThat(assertError(locks().acquire("full", "/f3", "shared", "w"), 429, "status_exception"))
                    .contains("the lock table of [full] is full")
                    .contains("esrel.treelock.max_locks_per_index");
            assertError(locks().acquire("full", "/f3", "shared", "w", null, "300ms"), 429, "status_exception");
            // Other indices have their own tables.
            createIndex("not-full");
            release("not-full", grant("not-full", "/f", "shared", "w"));
            release("full", held.remove(0));
            held.add(grant("full", "/f3", "shared", "w"));
            for (JsonNode g : held) {
                release("full", g);
            }
        } finally {
            putSetting("esrel.treelock.max_locks_per_index", "null");
        }
    }

    /** More than 50 kinds of broken requests: each is a 4xx with an Elasticsearch error body, never a 5xx. */
    @Test
    @Order(4)
    void shouldAnswerHostileInputWith4xx() {
        createIndex("hostile");
        JsonNode held = grant("hostile", "/held", "exclusive", "w1");
        long token = held.get("token").asLong();
        String acquire = "/hostile/_treelock/acquire";
        String release = "/hostile/_treelock/release";
        String renew = "/hostile/_treelock/renew";
        Map<String, String[]> hostile = new LinkedHashMap<>();
        hostile.put("no body", new String[] {"POST", acquire, null});
        hostile.put("empty object", new String[] {"POST", acquire, "{}"});
        hostile.put("truncated json", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\""});
        hostile.put("not json", new String[] {"POST", acquire, "path=/a&owner=w"});
        hostile.put("array body", new String[] {"POST", acquire, "[{\"path\": \"/a\", \"owner\": \"w\"}]"});
        hostile.put("string body", new String[] {"POST", acquire, "\"/a\""});
        hostile.put("number body", new String[] {"POST", acquire, "42"});
        hostile.put("null body", new String[] {"POST", acquire, "null"});
        hostile.put("trailing garbage", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\"} x"});
        hostile.put("two objects", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\"}{}"});
        hostile.put(
                "duplicate keys",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"path\": \"/b\", \"owner\": \"w\"}"});
        hostile.put(
                "unknown field",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"force\": true}"});
        hostile.put(
                "token on acquire",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1}"});
        hostile.put("numeric path", new String[] {"POST", acquire, "{\"path\": 1, \"owner\": \"w\"}"});
        hostile.put("array path", new String[] {"POST", acquire, "{\"path\": [\"/a\"], \"owner\": \"w\"}"});
        hostile.put("object path", new String[] {"POST", acquire, "{\"path\": {\"$ne\": null}, \"owner\": \"w\"}"});
        hostile.put("boolean owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": false}"});
        hostile.put(
                "numeric mode", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": 1}"});
        hostile.put(
                "unknown mode",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": \"write\"}"});
        hostile.put(
                "uppercase mode",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": \"EXCLUSIVE\"}"});
        hostile.put("relative path", new String[] {"POST", acquire, "{\"path\": \"a/b\", \"owner\": \"w\"}"});
        hostile.put("dot-dot path", new String[] {"POST", acquire, "{\"path\": \"/a/../held\", \"owner\": \"w\"}"});
        hostile.put("dot path", new String[] {"POST", acquire, "{\"path\": \"/a/./b\", \"owner\": \"w\"}"});
        hostile.put("double slash", new String[] {"POST", acquire, "{\"path\": \"/a//b\", \"owner\": \"w\"}"});
        hostile.put("trailing slash", new String[] {"POST", acquire, "{\"path\": \"/a/\", \"owner\": \"w\"}"});
        hostile.put("empty path", new String[] {"POST", acquire, "{\"path\": \"\", \"owner\": \"w\"}"});
        hostile.put("nul in path", new String[] {"POST", acquire, "{\"path\": \"/a\\u0000b\", \"owner\": \"w\"}"});
        hostile.put("newline in path", new String[] {"POST", acquire, "{\"path\": \"/a\\nb\", \"owner\": \"w\"}"});
        hostile.put(
                "lone surrogate path", new String[] {"POST", acquire, "{\"path\": \"/a\\ud800\", \"owner\": \"w\"}"});
        hostile.put(
                "oversized path",
                new String[] {"POST", acquire, "{\"path\": \"/" + "x".repeat(5000) + "\", \"owner\": \"w\"}"});
        hostile.put(
                "too deep path",
                new String[] {"POST", acquire, "{\"path\": \"" + "/d".repeat(200) + "\", \"owner\": \"w\"}"});
        hostile.put("missing owner", new String[] {"POST", acquire, "{\"path\": \"/a\"}"});
        hostile.put("empty owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"\"}"});
        hostile.put("blank owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \" \\t \"}"});
        hostile.put(
                "oversized owner",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"" + "o".repeat(300) + "\"}"});
        hostile.put(
                "lone surrogate owner", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"\\udc00\"}"});
        hostile.put("numeric ttl", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": 30}"});
        hostile.put(
                "ttl without unit",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"30\"}"});
        hostile.put(
                "negative ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"-5s\"}"});
        hostile.put(
                "minus one ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"-1\"}"});
        hostile.put(
                "zero ttl", new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"0s\"}"});
        hostile.put("absurd ttl", new String[] {
            "POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"100000000000000000000d\"}"
        });
        hostile.put("huge ttl", new String[] {
            "POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"9223372036854775807d\"}"
        });
        hostile.put(
                "fractional garbage ttl",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"1.2.3s\"}"});
        hostile.put(
                "negative wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": \"-1s\"}"});
        hostile.put(
                "absurd wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": \"1000d\"}"});
        hostile.put(
                "object wait",
                new String[] {"POST", acquire, "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": {\"s\": 1}}"});
        hostile.put(
                "deeply nested",
                new String[] {"POST", acquire, "{\"path\": " + "[".repeat(3000) + "]".repeat(3000) + "}"});
        hostile.put(
                "invalid utf-8",
                new String[] {"POST", acquire, "{\"path\": \"/a\u00ff\", \"owner\": \"w\"}", "latin1"});
        hostile.put("xml", new String[] {"POST", acquire, "<lock path=\"/a\"/>", "application/xml"});
        hostile.put(
                "unknown param",
                new String[] {"POST", acquire + "?force=true", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put("GET acquire", new String[] {"GET", acquire, null});
        hostile.put("PUT acquire", new String[] {"PUT", acquire, "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put("DELETE lock", new String[] {"DELETE", "/hostile/_treelock", null});
        hostile.put(
                "bad index name",
                new String[] {"POST", "/_Bad*Index_/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put(
                "index list",
                new String[] {"POST", "/hostile,other/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\"}"});
        hostile.put(
                "release without token", new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\"}"});
        hostile.put("release string token", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": \"" + token + "\"}"
        });
        hostile.put(
                "release fractional token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 1.5}"});
        hostile.put("release huge token", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 123456789012345678901234567890}"
        });
        hostile.put(
                "release negative token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": -" + token + "}"});
        hostile.put(
                "release zero token",
                new String[] {"POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": 0}"});
        hostile.put("release with mode", new String[] {
            "POST", release, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"mode\": \"shared\"}"
        });
        hostile.put(
                "release relative path",
                new String[] {"POST", release, "{\"path\": \"held\", \"owner\": \"w1\", \"token\": " + token + "}"});
        hostile.put("renew negative ttl", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"ttl\": \"-1s\"}"
        });
        hostile.put("renew absurd ttl", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"ttl\": \"1000d\"}"
        });
        hostile.put("renew with wait", new String[] {
            "POST", renew, "{\"path\": \"/held\", \"owner\": \"w1\", \"token\": " + token + ", \"wait\": \"1s\"}"
        });
        hostile.put("list with body", new String[] {"GET", "/hostile/_treelock", "{\"path\": \"/\"}"});
        hostile.put("list dot-dot", new String[] {"GET", "/hostile/_treelock?path=" + Http.enc("/a/.."), null});
        hostile.put("list empty path", new String[] {"GET", "/hostile/_treelock?path=", null});
        hostile.put("list huge size", new String[] {"GET", "/hostile/_treelock?size=99999999999", null});
        hostile.put("list negative size", new String[] {"GET", "/hostile/_treelock?size=-1", null});
        hostile.put("list dot-dot after", new String[] {"GET", "/hostile/_treelock?after=" + Http.enc("/a/.."), null});

        for (Map.Entry<String, String[]> e : hostile.entrySet()) {
            String[] req = e.getValue();
            Http.Response r;
            if (req.length > 3 && req[3].equals("latin1")) {
                r = sendBytes(req[1], req[2].getBytes(StandardCharsets.ISO_8859_1));
            } else {
                r = http().send(req[0], req[1], req[2], req.length > 3 ? req[3] : "application/json");
            }
            assertThat(r.status()).as("%s: %s", e.getKey(), r).isBetween(400, 499);
            assertThat(r.get("status").asInt()).as("%s: %s", e.getKey(), r).isEqualTo(r.status());
            if (r.get("error").isObject()) {
                assertThat(r.get("error").get("reason").asText())
                        .as("%s: %s", e.getKey(), r)
                        .isNotBlank();
            }
        }
        assertThat(hostile).hasSizeGreaterThanOrEqualTo(50);
        // None of it changed the table.
        JsonNode holders = locks().list("hostile", null).get("locks");
        assertThat(holders).hasSize(1);
        assertThat(holders.get(0).get("holders").get(0).get("token").asLong()).isEqualTo(token);
        release("hostile", held);
    }

    private static Http.Response sendBytes(String path, byte[] body) {
        try {
            java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            cluster.httpUri().resolve(path))
                                    .header("Content-Type", "application/json")
                                    .POST(java.net.http.HttpRequest.BodyPublishers.ofByteArray(body))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            JsonNode json;
            try {
                json = Http.JSON.readTree(response.body());
            } catch (Exception e) {
                json = Http.JSON.missingNode();
            }
            return new Http.Response(response.statusCode(), response.body(), json);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    @Order(5)
    void shouldRefuseToBindAGrantToAUserWithoutSecurity() {
        createIndex("unsecured");
        Http.Response r = http().post(
                        "/unsecured/_treelock/acquire", "{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": true}");
        assertThat(assertError(r, 400, "illegal_argument_exception"))
                .contains("bind_to_user needs an authenticated user");
        assertThat(locks().list("unsecured", null).get("locks")).isEmpty();
    }
}
