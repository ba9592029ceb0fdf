package io.github.esrel.plugin.lock.store;

import static io.github.esrel.plugin.lock.grant.LockMode.EXCLUSIVE;
import static io.github.esrel.plugin.lock.grant.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.GrantIds;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.table.LockTable;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.xcontent.XContentHelper;
import org.elasticsearch.xcontent.XContentBuilder;
import org.elasticsearch.xcontent.XContentType;
import org.elasticsearch.xcontent.json.JsonXContent;
import org.junit.jupiter.api.Test;

class LockHeadTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final Grant BOUND = new Grant(
            "/😀/ü", EXCLUSIVE, "host \"x\"", 7_000, NOW + 60_000, -3, new AuthenticatedUser("alice", "file1"));
    private static final Grant FREE = new Grant("/a/b", SHARED, "w1", 7_001, NOW + 1, 42);

    @Test
    void shouldRoundTripTheHeadDocument() throws IOException {
        ReleasedId released = new ReleasedId(GrantIds.nonce("released-by-its-id"), 4, NOW + 120_000);
        LockHead.Step w1 =
                new LockHead.Step("w-1", new RoundChanges(6_999, List.of(FREE), List.of(4L), List.of(released)));
        LockHead head =
                new LockHead(9_000, "w-2", List.of(w1), new RoundChanges(7_001, List.of(BOUND, FREE), List.of(5L, 6L)));
        Map<String, Object> source = source(head.toXContent(JsonXContent.contentBuilder(), "fs", NOW));

        assertThat(LockHead.isHead(source)).isTrue();
        assertThat(source).containsEntry("namespace", "fs").containsEntry("updated_at", NOW);
        LockHead read = LockHead.fromSource(source);
        assertThat(read.round()).isEqualTo(9_000);
        assertThat(read.writeId()).isEqualTo("w-2");
        assertThat(read.earlier()).containsExactly(w1);
        assertThat(read.changes().lastToken()).isEqualTo(7_001);
        assertThat(read.changes().put()).containsExactly(BOUND, FREE);
        assertThat(read.changes().removed()).containsExactly(5L, 6L);
        assertThat(read.changes().released()).isEmpty();
        assertThat(read.earlier().get(0).changes().released()).containsExactly(released);
        assertThat(w1.size()).as("a released id counts as a change").isEqualTo(3);

        LockHead first = new LockHead(1, "w-1", List.of(), new RoundChanges(0, List.of(), List.of()));
        assertThat(LockHead.fromSource(source(first.toXContent(JsonXContent.contentBuilder(), "fs", NOW))))
                .isEqualTo(first);
    }

    /**
     * A head keeps the rounds before it within both limits, so that a node whose table is at one of them catches
     * up from the head alone; further back, or at a round too large to keep, the table must be rebuilt.
     */
    @Test
    void shouldKeepTheLastRoundsWithinBothLimits() {
        List<LockHead.Step> earlier = List.of();
        LockHead.Step last = step("w-0", 1);
        for (int i = 1; i <= LockHead.MAX_EARLIER_ROUNDS + 3; i++) {
            earlier = LockHead.earlierAfter(earlier, last);
            last = step("w-" + i, 1);
        }
        LockHead head = new LockHead(9_000, last.writeId(), earlier, last.changes());
        assertThat(head.earlier()).hasSize(LockHead.MAX_EARLIER_ROUNDS);
        assertThat(head.earlier().get(0).writeId()).isEqualTo("w-3");
        assertThat(head.stepsAfter("w-2")).as("dropped: rebuild").isNull();
        assertThat(head.stepsAfter("w-3"))
                .extracting(LockHead.Step::writeId)
                .containsExactly("w-4", "w-5", "w-6", "w-7", "w-8", "w-9", "w-10", "w-11");
        assertThat(head.stepsAfter("w-10")).extracting(LockHead.Step::writeId).containsExactly("w-11");
        assertThat(head.stepsAfter("unknown")).isNull();

        // By changes: a round with more than the limit is not kept, and pushes out every earlier one.
        List<LockHead.Step> afterABigRound =
                LockHead.earlierAfter(earlier, step("big", LockHead.MAX_EARLIER_CHANGES + 1));
        assertThat(afterABigRound).isEmpty();
        List<LockHead.Step> afterAHalfRound =
                LockHead.earlierAfter(earlier, step("half", LockHead.MAX_EARLIER_CHANGES - 2));
        assertThat(afterAHalfRound).extracting(LockHead.Step::writeId).containsExactly("w-9", "w-10", "half");
    }

    private static LockHead.Step step(String writeId, int removed) {
        List<Long> tokens = new java.util.ArrayList<>();
        for (long i = 0; i < removed; i++) {
            tokens.add(i);
        }
        return new LockHead.Step(writeId, new RoundChanges(7_000, List.of(), tokens));
    }

    /** A node with the one-document store reads a head as a table in which every path is locked. */
    @Test
    void shouldLookFullyLockedToAnOlderPlugin() throws IOException {
        LockHead head = new LockHead(9_000, "w-2", List.of(), new RoundChanges(7_001, List.of(FREE), List.of()));
        Map<String, Object> source = source(head.toXContent(JsonXContent.contentBuilder(), "fs", NOW));

        LockTable seenByAnOlderPlugin = LockTable.fromSource(source);
        assertThat(seenByAnOlderPlugin.lastToken()).isEqualTo(7_001);
        for (String path : List.of("/", "/a", "/a/b/c")) {
            for (LockMode mode : LockMode.values()) {
                assertThat(seenByAnOlderPlugin.conflicts(path, mode, Long.MAX_VALUE - 1))
                        .as("%s %s", mode, path)
                        .containsExactly(LockHead.FENCE);
            }
        }
    }

    @Test
    void shouldTellATableFromAHeadAndRefuseACorruptHead() {
        assertThat(LockHead.isHead(Map.of("last_token", 5, "grants", List.of())))
                .isFalse();
        assertThatThrownBy(() -> LockHead.fromSource(Map.of("kind", "head", "last_token", 5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corrupt");
    }

    private static Map<String, Object> source(XContentBuilder builder) {
        return XContentHelper.convertToMap(XContentType.JSON.xContent(), Strings.toString(builder), false);
    }
}
