package io.github.esrel.plugin.lock.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.LockMode;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.elasticsearch.action.ActionRequestValidationException;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.Writeable;
import org.elasticsearch.core.TimeValue;
import org.elasticsearch.rest.RestStatus;
import org.elasticsearch.tasks.CancellableTask;
import org.elasticsearch.tasks.TaskId;
import org.elasticsearch.xcontent.XContentParseException;
import org.elasticsearch.xcontent.XContentParser;
import org.elasticsearch.xcontent.XContentParserConfiguration;
import org.elasticsearch.xcontent.XContentType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TreeLockRequestTest {

    private static AcquireTreeLockRequest acquire(String json) throws IOException {
        try (XContentParser parser =
                XContentType.JSON.xContent().createParser(XContentParserConfiguration.EMPTY, json)) {
            return AcquireTreeLockRequest.fromXContent("fs", parser);
        }
    }

    private static ReleaseTreeLockRequest release(String json) throws IOException {
        try (XContentParser parser =
                XContentType.JSON.xContent().createParser(XContentParserConfiguration.EMPTY, json)) {
            return ReleaseTreeLockRequest.fromXContent("fs", parser);
        }
    }

    private static RenewTreeLockRequest renew(String json) throws IOException {
        try (XContentParser parser =
                XContentType.JSON.xContent().createParser(XContentParserConfiguration.EMPTY, json)) {
            return RenewTreeLockRequest.fromXContent("fs", parser);
        }
    }

    @Test
    void shouldParseTheDocumentedBodies() throws IOException {
        AcquireTreeLockRequest a = acquire(AcquireTreeLockRequest.EXAMPLE);
        assertThat(a)
                .isEqualTo(new AcquireTreeLockRequest(
                        "fs",
                        "/a/b/c.txt",
                        LockMode.EXCLUSIVE,
                        "worker-7",
                        TimeValue.timeValueSeconds(30),
                        TimeValue.timeValueSeconds(5)));
        assertThat(a.validate()).isNull();
        assertThat(a.indices()).containsExactly("fs");
        assertThat(a.indicesOptions().expandWildcardsOpen()).isFalse();
        assertThat(a.indicesOptions().allowNoIndices()).isFalse();
        assertThat(a.indicesOptions().ignoreUnavailable()).isFalse();

        AcquireTreeLockRequest defaults = acquire("{\"owner\": \"w\", \"path\": \"/\"}");
        assertThat(defaults.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(defaults.ttl()).isNull();
        assertThat(defaults.waitTime()).isNull();
        assertThat(acquire("{\"owner\": \"w\", \"path\": \"/x\", \"mode\": \"shared\", \"ttl\": null}")
                        .mode())
                .isEqualTo(LockMode.SHARED);

        assertThat(release(ReleaseTreeLockRequest.EXAMPLE))
                .isEqualTo(new ReleaseTreeLockRequest("fs", "/a/b/c.txt", "worker-7", 17));
        assertThat(renew(RenewTreeLockRequest.EXAMPLE))
                .isEqualTo(
                        new RenewTreeLockRequest("fs", "/a/b/c.txt", "worker-7", 17, TimeValue.timeValueSeconds(30)));
        assertThat(renew("{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1764504000000017}")
                        .ttl())
                .isNull();
    }

    @Test
    void shouldReadDurationsWithUnits() throws IOException {
        for (Map.Entry<String, Long> e : Map.of(
                        "1ms",
                        1L,
                        "500ms",
                        500L,
                        "2m",
                        120_000L,
                        "1h",
                        3_600_000L,
                        "0s",
                        0L,
                        "1d",
                        86_400_000L,
                        "1500micros",
                        1L)
                .entrySet()) {
            assertThat(acquire("{\"owner\": \"w\", \"path\": \"/\", \"wait\": \"" + e.getKey() + "\"}")
                            .waitTime()
                            .millis())
                    .as(e.getKey())
                    .isEqualTo(e.getValue());
        }
    }

    /** Bodies that are not JSON objects of the right shape: parse errors (400), never anything else. */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "{",
                "{\"path\": \"/a\"",
                "not json",
                "[]",
                "\"path\"",
                "42",
                "null",
                "{\"path\": 1, \"owner\": \"w\"}",
                "{\"path\": [\"/a\"], \"owner\": \"w\"}",
                "{\"path\": {\"$gt\": \"\"}, \"owner\": \"w\"}",
                "{\"path\": \"/a\", \"owner\": true}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"mode\": 1}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": 30}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"wait\": 1.5}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"extra\": 1}",
                "{\"path\": \"/a\", \"owner\": \"w\"} trailing",
                "{\"path\": \"/a\", \"owner\": \"w\"} {}",
                "{\"path\": \"/a\", \"path\": \"/b\", \"owner\": \"w\"}"
            })
    void shouldRefuseMalformedAcquireBodiesAsParseErrors(String body) {
        assertThatThrownBy(() -> acquire(body))
                .isInstanceOfAny(XContentParseException.class, IOException.class, IllegalArgumentException.class)
                .satisfies(e -> assertThat(RestStatusOf.status(e)).isEqualTo(RestStatus.BAD_REQUEST));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": \"17\"}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1.0}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 99999999999999999999999}",
                "{\"path\": \"/a\", \"owner\": \"w\"}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": null}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1, \"ttl\": \"1s\"}",
                "{\"path\": \"/a\", \"owner\": \"w\", \"token\": 1, \"mode\": \"shared\"}"
            })
    void shouldRefuseMalformedReleaseBodies(String body) {
        assertThatThrownBy(() -> release(body))
                .satisfies(e -> assertThat(RestStatusOf.status(e)).isEqualTo(RestStatus.BAD_REQUEST));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "30",
                "-1",
                "-5s",
                "",
                " ",
                "1.5.s",
                "s",
                "30 seconds",
                "1y",
                "99999999999999999999999d",
                "1e3s",
                "abc",
                "NaNs"
            })
    void shouldRefuseMalformedDurations(String ttl) {
        assertThatThrownBy(() -> acquire("{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"" + ttl + "\"}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[ttl] must");
    }

    @Test
    void shouldValidateTheFields() throws IOException {
        assertThat(problems(acquire("{\"owner\": \"w\"}"))).containsExactly("path is required, e.g. \"/a/b/c.txt\"");
        assertThat(problems(acquire("{\"path\": \"a/b\", \"owner\": \"\"}")))
                .containsExactly("path [a/b] must be absolute (start with \"/\")", "owner must not be empty or blank");
        assertThat(problems(acquire("{\"path\": \"/a/../b\"}"))).hasSize(2);
        assertThat(problems(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"0s\"}")))
                .containsExactly("ttl must be at least 1ms, got [0s]");
        assertThat(problems(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"ttl\": \"10micros\"}")))
                .containsExactly("ttl must be at least 1ms, got [10micros]");
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"wait\": \"0s\"}")
                        .validate())
                .isNull();
        assertThat(problems(new ReleaseTreeLockRequest("fs", "/a", "w", 0)))
                .containsExactly("token must be a positive integer as returned by acquire, got 0");
        assertThat(problems(release("{\"path\": \"/a\", \"owner\": \"w\", \"token\": -3}")))
                .containsExactly("token must be a positive integer as returned by acquire, got -3");
        assertThat(problems(renew("{\"path\": \"/a/\", \"owner\": \"w\", \"token\": 3, \"ttl\": \"0ms\"}")))
                .containsExactly(
                        "path [/a/] must not end with \"/\"; write [/a]", "ttl must be at least 1ms, got [0ms]");
        assertThat(problems(new ListTreeLocksRequest("", null)))
                .containsExactly("index is required, e.g. POST /my-index/_treelock/acquire");
        assertThat(new ListTreeLocksRequest("fs", null).validate()).isNull();
        assertThat(problems(new ListTreeLocksRequest("fs", "a")))
                .containsExactly("path [a] must be absolute (start with \"/\")");
        assertThat(new ListTreeLocksRequest("fs", "/a", "/a/k", 1).validate()).isNull();
        assertThat(new ListTreeLocksRequest("fs", null, null, ListTreeLocksRequest.MAX_SIZE).validate())
                .isNull();
        assertThat(problems(new ListTreeLocksRequest("fs", null, "k", 0)))
                .containsExactly(
                        "after [k] must be absolute (start with \"/\")",
                        "size must be between 1 and 10000 paths, got 0");
        assertThat(problems(new ListTreeLocksRequest("fs", null, null, -1)))
                .containsExactly("size must be between 1 and 10000 paths, got -1");
        assertThat(problems(new ListTreeLocksRequest("fs", null, null, 10_001)))
                .containsExactly("size must be between 1 and 10000 paths, got 10001");
    }

    @Test
    void shouldMakeAcquireCancellable() {
        AcquireTreeLockRequest a = new AcquireTreeLockRequest("fs", "/a", LockMode.SHARED, "w", null, null);
        assertThat(a.createTask(1, "transport", AcquireTreeLockAction.NAME, TaskId.EMPTY_TASK_ID, Map.of()))
                .isInstanceOf(CancellableTask.class);
        assertThat(a.getDescription()).isEqualTo("acquire shared tree lock on [/a] in [fs] for [w]");
    }

    @Test
    void shouldReadBindToUserAsABooleanOnly() throws IOException {
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": true}")
                        .bindToUser())
                .isTrue();
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": false}")
                        .bindToUser())
                .isFalse();
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\"}").bindToUser()).isFalse();
        assertThatThrownBy(() -> acquire("{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": \"true\"}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[bind_to_user] must be true or false, got a string");
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\", \"bind_to_user\": true}")
                        .getDescription())
                .isEqualTo("acquire exclusive tree lock on [/a] in [fs] for [w] bound to the user");
    }

    @Test
    void shouldReadAndValidateGrantIds() throws IOException {
        String id = "0f8c0b3e-6d4f-4f27-9a55-1b2c3d4e5f60";
        AcquireTreeLockRequest a = acquire("{\"path\": \"/a\", \"owner\": \"w\", \"grant_id\": \"" + id + "\"}");
        assertThat(a.grantId()).isEqualTo(id);
        assertThat(a.validate()).isNull();
        assertThat(a.getDescription()).endsWith("grant_id [" + id + "]");
        assertThat(acquire("{\"path\": \"/a\", \"owner\": \"w\"}").grantId()).isNull();

        ReleaseTreeLockRequest byToken =
                release("{\"path\": \"/a\", \"owner\": \"w\", \"token\": 3, \"grant_id\": \"" + id + "\"}");
        assertThat(byToken.token()).isEqualTo(3);
        assertThat(byToken.grantId()).isEqualTo(id);
        assertThat(byToken.validate()).isNull();
        ReleaseTreeLockRequest byId = release("{\"path\": \"/a\", \"owner\": \"w\", \"grant_id\": \"" + id + "\"}");
        assertThat(byId.token()).as("named by its grant id alone").isZero();
        assertThat(byId.validate()).isNull();
        assertThatThrownBy(() -> release("{\"path\": \"/a\", \"owner\": \"w\"}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("token is required");
        assertThat(problems(
                        release("{\"path\": \"/a\", \"owner\": \"w\", \"token\": -1, \"grant_id\": \"" + id + "\"}")))
                .containsExactly("token must be a positive integer as returned by acquire, got -1");

        String problem = "grant_id must be 16 to 128 characters of [A-Za-z0-9_-], random and new for each acquisition"
                + " (a UUID, say), got [";
        for (String bad : List.of(
                "short", "x".repeat(129), "0f8c0b3e 6d4f 4f27 9a55", "0f8c0b3e/6d4f/4f27/9a55", "ü".repeat(20))) {
            assertThat(problems(new AcquireTreeLockRequest("fs", "/a", LockMode.SHARED, "w", null, null, false, bad)))
                    .as(bad)
                    .singleElement()
                    .asString()
                    .startsWith(problem);
            assertThat(problems(new ReleaseTreeLockRequest("fs", "/a", "w", 0, bad)))
                    .as(bad)
                    .singleElement()
                    .asString()
                    .startsWith(problem);
        }
        assertThatThrownBy(() -> acquire("{\"path\": \"/a\", \"owner\": \"w\", \"grant_id\": 17}"))
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("[grant_id] must be a string");
        assertThatThrownBy(
                        () -> renew("{\"path\": \"/a\", \"owner\": \"w\", \"token\": 3, \"grant_id\": \"" + id + "\"}"))
                .as("a renewal needs none: it is the same renewal however often it is sent")
                .isInstanceOf(XContentParseException.class)
                .hasMessageContaining("unknown field [grant_id]");
    }

    @Test
    void shouldRoundTripRequestsAndResponses() throws IOException {
        for (AcquireTreeLockRequest r : List.of(
                new AcquireTreeLockRequest("fs", "/a", LockMode.SHARED, "w", null, null),
                new AcquireTreeLockRequest(
                        "fs", "/😀", LockMode.EXCLUSIVE, null, TimeValue.timeValueMillis(1500), TimeValue.ZERO),
                new AcquireTreeLockRequest("fs", "/a", LockMode.SHARED, "w", null, null, true, null),
                new AcquireTreeLockRequest(
                        "fs", "/a", LockMode.SHARED, "w", null, null, false, "grant-id-0123456789"))) {
            assertThat(roundTrip(r, AcquireTreeLockRequest::new)).isEqualTo(r);
        }
        for (ReleaseTreeLockRequest release : List.of(
                new ReleaseTreeLockRequest("fs", "/a", "w", Long.MAX_VALUE),
                new ReleaseTreeLockRequest("fs", "/a", "w", 0, "grant-id-0123456789"))) {
            assertThat(roundTrip(release, ReleaseTreeLockRequest::new)).isEqualTo(release);
        }
        assertThat(new ReleaseTreeLockRequest("fs", "/a", "w", 3, "grant-id-0123456789"))
                .isNotEqualTo(new ReleaseTreeLockRequest("fs", "/a", "w", 3));
        RenewTreeLockRequest renew = new RenewTreeLockRequest("fs", "/a", "w", 3, TimeValue.timeValueMinutes(2));
        assertThat(roundTrip(renew, RenewTreeLockRequest::new)).isEqualTo(renew);
        ListTreeLocksRequest list = new ListTreeLocksRequest("fs", null);
        assertThat(roundTrip(list, ListTreeLocksRequest::new)).isEqualTo(list);
        ListTreeLocksRequest page = new ListTreeLocksRequest("fs", "/a", "/a/k", 100);
        assertThat(roundTrip(page, ListTreeLocksRequest::new)).isEqualTo(page).isNotEqualTo(list);

        Grant g = new Grant("/a", LockMode.SHARED, "w", 17, 1_764_504_060_123L, -5);
        Grant bound = new Grant(
                "/b", LockMode.SHARED, "w", 18, 1_764_504_060_123L, -6, new AuthenticatedUser("alice", "file1"));
        assertThat(roundTrip(bound, Grant::readFrom)).isEqualTo(bound);
        for (AcquireTreeLockResponse r : List.of(
                AcquireTreeLockResponse.acquired("fs", g),
                AcquireTreeLockResponse.acquired("fs", bound),
                AcquireTreeLockResponse.conflict("fs", List.of(g, bound)))) {
            assertThat(roundTrip(r, AcquireTreeLockResponse::new)).isEqualTo(r);
        }
        assertThat(roundTrip(new RenewTreeLockResponse(5), RenewTreeLockResponse::new))
                .isEqualTo(new RenewTreeLockResponse(5));
        ListTreeLocksResponse listed = new ListTreeLocksResponse("fs", List.of(g));
        assertThat(roundTrip(listed, ListTreeLocksResponse::new)).isEqualTo(listed);
        ListTreeLocksResponse partial = new ListTreeLocksResponse("fs", List.of(g), "/a");
        assertThat(roundTrip(partial, ListTreeLocksResponse::new))
                .isEqualTo(partial)
                .isNotEqualTo(listed);
    }

    @Test
    void shouldRenderTheContractJson() {
        Grant g = new Grant("/a/b/c.txt", LockMode.EXCLUSIVE, "worker-7", 17, 1_764_504_060_123L, 99);
        AcquireTreeLockResponse acquired = AcquireTreeLockResponse.acquired("fs", g);
        assertThat(acquired.status()).isEqualTo(RestStatus.OK);
        assertThat(Strings.toString(acquired))
                .isEqualTo(
                        "{\"acquired\":true,\"index\":\"fs\",\"path\":\"/a/b/c.txt\",\"mode\":\"exclusive\",\"owner\":\"worker-7\",\"token\":17,"
                                + "\"expires_at\":\"2025-11-30T12:01:00.123Z\",\"expires_at_millis\":1764504060123}");
        AcquireTreeLockResponse conflict = AcquireTreeLockResponse.conflict("fs", List.of(g));
        assertThat(conflict.status()).isEqualTo(RestStatus.CONFLICT);
        assertThat(Strings.toString(conflict))
                .isEqualTo(
                        "{\"acquired\":false,\"conflicts\":[{\"path\":\"/a/b/c.txt\",\"mode\":\"exclusive\",\"owner\":\"worker-7\","
                                + "\"expires_at\":\"2025-11-30T12:01:00.123Z\"}]}");
        assertThat(Strings.toString(ReleaseTreeLockResponse.RELEASED)).isEqualTo("{\"released\":true}");
        assertThat(Strings.toString(new RenewTreeLockResponse(1_764_504_060_000L)))
                .isEqualTo("{\"expires_at\":\"2025-11-30T12:01:00.000Z\",\"expires_at_millis\":1764504060000}");
        Grant s1 = new Grant("/d", LockMode.SHARED, "w1", 20, 1_764_504_060_000L, 1);
        Grant s2 = new Grant("/d", LockMode.SHARED, "w2", 21, 1_764_504_060_000L, 2);
        assertThat(Strings.toString(new ListTreeLocksResponse("fs", List.of(g, s1, s2))))
                .isEqualTo(
                        "{\"index\":\"fs\",\"locks\":["
                                + "{\"path\":\"/a/b/c.txt\",\"mode\":\"exclusive\",\"holders\":[{\"owner\":\"worker-7\",\"token\":17,"
                                + "\"expires_at\":\"2025-11-30T12:01:00.123Z\",\"expires_at_millis\":1764504060123}]},"
                                + "{\"path\":\"/d\",\"mode\":\"shared\",\"holders\":["
                                + "{\"owner\":\"w1\",\"token\":20,\"expires_at\":\"2025-11-30T12:01:00.000Z\",\"expires_at_millis\":1764504060000},"
                                + "{\"owner\":\"w2\",\"token\":21,\"expires_at\":\"2025-11-30T12:01:00.000Z\",\"expires_at_millis\":1764504060000}]}]}");
        assertThat(Strings.toString(new ListTreeLocksResponse("fs", List.of())))
                .isEqualTo("{\"index\":\"fs\",\"locks\":[]}");
        assertThat(Strings.toString(new ListTreeLocksResponse("fs", List.of(s1), "/d")))
                .endsWith("]}],\"next\":\"/d\"}");
    }

    private static List<String> problems(TreeLockRequest request) {
        ActionRequestValidationException e = request.validate();
        return e == null ? List.of() : e.validationErrors();
    }

    private static <T extends Writeable> T roundTrip(T value, Writeable.Reader<T> reader) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            value.writeTo(out);
            try (StreamInput in = out.bytes().streamInput()) {
                T read = reader.read(in);
                assertThat(in.available()).as("all bytes consumed").isZero();
                return read;
            }
        }
    }

    /** The HTTP status Elasticsearch answers for an exception thrown while preparing a request. */
    private static final class RestStatusOf {
        static RestStatus status(Throwable e) {
            return org.elasticsearch.ExceptionsHelper.status(e);
        }
    }
}
