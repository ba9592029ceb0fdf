package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The write log: what it keeps, and what it says of a write that met a conflict. */
class WriteLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final WriteLog log = new WriteLog("_w");

    private static ObjectNode json(String text) throws Exception {
        return (ObjectNode) JSON.readTree(text.replace('\'', '"'));
    }

    private static Versioned<ObjectNode> at(long term, long seqNo) {
        return new Versioned<>("i", "1", null, null, seqNo, term, 1);
    }

    @Test
    void shouldAppendTheWriteAndKeepTheLastEight() throws Exception {
        ObjectNode doc = json("{'votes':1}");
        ObjectNode stored = null;
        for (int seq = 0; seq < 12; seq++) {
            stored = log.with(doc, stored, WriteLog.on(at(1, seq)), "id" + seq);
        }
        assertThat(stored.get("votes").asInt()).isEqualTo(1);
        assertThat(stored.get("_w")).hasSize(WriteLog.SIZE);
        assertThat(stored.get("_w").get(0).get("on").asText()).isEqualTo("1:4");
        assertThat(stored.get("_w").get(WriteLog.SIZE - 1).get("id").asText()).isEqualTo("id11");
        assertThat(doc.has("_w")).as("the function's tree is not changed").isFalse();
        assertThat(log.without(stored)).isEqualTo(json("{'votes':1}"));
    }

    @Test
    void shouldTellAppliedNotAppliedAndUnknown() throws Exception {
        ObjectNode mine = log.with(json("{'v':2}"), null, "1:7", "mine");
        ObjectNode after = log.with(json("{'v':3}"), mine, "1:8", "theirs");
        assertThat(log.verdict(after, "1:7", "mine"))
                .as("my write on 1:7 is in the log, under a later one")
                .isEqualTo(WriteLog.Verdict.APPLIED);
        ObjectNode other = log.with(json("{'v':2}"), null, "1:7", "theirs");
        assertThat(log.verdict(other, "1:7", "mine")).isEqualTo(WriteLog.Verdict.NOT_APPLIED);
        assertThat(log.verdict(other, "1:6", "mine"))
                .as("the log does not reach back to my version")
                .isEqualTo(WriteLog.Verdict.UNKNOWN);
        assertThat(log.verdict(json("{'v':9}"), "1:7", "mine"))
                .as("replaced by a writer without the log")
                .isEqualTo(WriteLog.Verdict.UNKNOWN);
        assertThat(log.verdict(null, "1:7", "mine")).as("deleted").isEqualTo(WriteLog.Verdict.UNKNOWN);
        assertThat(log.verdict(log.with(json("{}"), null, "new", "mine"), "new", "mine"))
                .isEqualTo(WriteLog.Verdict.APPLIED);
    }
}
