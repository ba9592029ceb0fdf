package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/** The write log: what it keeps, and what it says of a write that met a conflict. */
class WriteLogTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final WriteLog log = new WriteLog("_w", true);

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

    /** The document {@code source} at seq_no {@code seq} (term 1) and version {@code version}. */
    private static Versioned<ObjectNode> doc(ObjectNode source, long seq, long version) {
        return new Versioned<>("i", "1", null, source, seq, 1, version);
    }

    private static final Versioned<ObjectNode> BASE = new Versioned<>("i", "1", null, null, 7, 1, 3);

    private WriteLog.Verdict verdict(Versioned<ObjectNode> now, String id) {
        return WriteLog.verdict(log, now, BASE, id, false);
    }

    @Test
    void shouldKeepTheLogAsStoredAndHideItWhereWritesAddNoEntry() throws Exception {
        WriteLog kept = new WriteLog("_w", false);
        ObjectNode stored = log.with(json("{'v':1}"), null, "1:5", "a");
        assertThat(kept.newId()).isNull();
        assertThat(kept.without(stored)).isEqualTo(json("{'v':1}"));
        assertThat(kept.with(json("{'v':2}"), stored, "1:6", null))
                .as("another Occ's log, neither lost nor added to")
                .isEqualTo(json("{'v':2}").set("_w", stored.get("_w")));
        ObjectNode plain = json("{'v':2}");
        assertThat(kept.with(plain, json("{'v':1}"), "1:6", null)).isSameAs(plain);
    }

    @Test
    void shouldTellAWriteByItsEntry() throws Exception {
        ObjectNode mine = log.with(json("{'v':2}"), null, "1:7", "mine");
        ObjectNode after = log.with(json("{'v':3}"), mine, "1:9", "theirs");
        assertThat(verdict(doc(after, 10, 5), "mine"))
                .as("my write on 1:7 is in the log, under a later one")
                .isEqualTo(WriteLog.Verdict.APPLIED);
        ObjectNode other = log.with(json("{'v':2}"), null, "1:7", "theirs");
        assertThat(verdict(doc(other, 8, 4), "mine")).isEqualTo(WriteLog.Verdict.NOT_APPLIED);
        assertThat(WriteLog.verdict(log, doc(log.with(json("{}"), null, "new", "mine"), 3, 1), null, "mine", false))
                .as("a create")
                .isEqualTo(WriteLog.Verdict.APPLIED);
    }

    @Test
    void shouldTellAWriteNotAppliedWhereTheLogReachesBackPastItsVersionWithoutIt() throws Exception {
        ObjectNode older = log.with(json("{'v':1}"), null, "1:5", "a");
        ObjectNode partial = json("{'v':2}").setAll(log.without(older)); // a foreign partial update kept the log
        partial.set("_w", older.get("_w"));
        ObjectNode next = log.with(json("{'v':3}"), partial, "1:8", "b");
        assertThat(verdict(doc(next, 9, 6), "mine")).isEqualTo(WriteLog.Verdict.NOT_APPLIED);

        ObjectNode newer = log.with(json("{'v':2}"), null, "1:8", "b");
        assertThat(verdict(doc(newer, 9, 6), "mine"))
                .as("the log does not reach back to my version, and more than one write since")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
    }

    @Test
    void shouldTellAWriteNotAppliedWhenTheOneWriteSinceIsNotIt() throws Exception {
        assertThat(verdict(doc(json("{'v':9}"), 8, 4), "mine"))
                .as("replaced once by a writer without the log")
                .isEqualTo(WriteLog.Verdict.NOT_APPLIED);
        assertThat(verdict(doc(json("{'v':9}"), 12, 6), "mine"))
                .as("replaced several times by writers without the log")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
        assertThat(WriteLog.verdict(null, doc(json("{'v':9}"), 8, 4), BASE, null, false))
                .as("without a log, the one write since may be ours")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
        assertThat(WriteLog.verdict(log, doc(json("{}"), 0, 1), null, "mine", false))
                .as("created once by another writer")
                .isEqualTo(WriteLog.Verdict.NOT_APPLIED);
    }

    @Test
    void shouldTellAWriteNotYetAppliedWhileTheDocumentIsAsItFoundIt() throws Exception {
        assertThat(verdict(doc(json("{'v':1}"), 7, 3), "mine")).isEqualTo(WriteLog.Verdict.NOT_YET);
        assertThat(WriteLog.verdict(null, doc(json("{'v':1}"), 7, 3), BASE, null, true))
                .as("a delete")
                .isEqualTo(WriteLog.Verdict.NOT_YET);
        assertThat(WriteLog.verdict(log, null, null, "mine", false))
                .as("a create of a document still missing")
                .isEqualTo(WriteLog.Verdict.NOT_YET);
    }

    @Test
    void shouldNotTellFromACopyBehindTheOneReadBeforeOrAGoneDocument() throws Exception {
        ObjectNode older = log.with(json("{'v':1}"), null, "1:5", "a");
        assertThat(verdict(doc(older, 6, 2), "mine"))
                .as("a replica behind: its log reaches back, but not to a version as new as the one written on")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
        assertThat(verdict(null, "mine")).as("deleted since").isEqualTo(WriteLog.Verdict.CANNOT_TELL);
        assertThat(WriteLog.verdict(null, null, BASE, null, true))
                .as("gone after a delete: ours or another's")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
    }

    @Test
    void shouldTellADeleteNotAppliedOnlyWhenOneWriteChangedTheDocumentSince() throws Exception {
        assertThat(WriteLog.verdict(null, doc(json("{'v':2}"), 8, 4), BASE, null, true))
                .isEqualTo(WriteLog.Verdict.NOT_APPLIED);
        assertThat(WriteLog.verdict(null, doc(json("{'v':2}"), 9, 5), BASE, null, true))
                .as("a delete and a create would be two writes")
                .isEqualTo(WriteLog.Verdict.CANNOT_TELL);
    }
}
