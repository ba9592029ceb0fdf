package io.github.esrel.plugin.lock;

import static io.github.esrel.plugin.lock.LockMode.EXCLUSIVE;
import static io.github.esrel.plugin.lock.LockMode.SHARED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
        LockHead head =
                new LockHead(9_000, "w-2", "w-1", new LockState.Changes(7_001, List.of(BOUND, FREE), List.of(5L, 6L)));
        Map<String, Object> source = source(head.toXContent(JsonXContent.contentBuilder(), "fs", NOW));

        assertThat(LockHead.isHead(source)).isTrue();
        assertThat(source).containsEntry("namespace", "fs").containsEntry("updated_at", NOW);
        LockHead read = LockHead.fromSource(source);
        assertThat(read.round()).isEqualTo(9_000);
        assertThat(read.writeId()).isEqualTo("w-2");
        assertThat(read.prevWriteId()).isEqualTo("w-1");
        assertThat(read.changes().lastToken()).isEqualTo(7_001);
        assertThat(read.changes().put()).containsExactly(BOUND, FREE);
        assertThat(read.changes().removed()).containsExactly(5L, 6L);

        LockHead first = new LockHead(1, "w-1", null, new LockState.Changes(0, List.of(), List.of()));
        assertThat(LockHead.fromSource(source(first.toXContent(JsonXContent.contentBuilder(), "fs", NOW))))
                .isEqualTo(first);
    }

    /** A node with the one-document store reads a head as a table in which every path is locked. */
    @Test
    void shouldLookFullyLockedToAnOlderPlugin() throws IOException {
        LockHead head = new LockHead(9_000, "w-2", "w-1", new LockState.Changes(7_001, List.of(FREE), List.of()));
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
