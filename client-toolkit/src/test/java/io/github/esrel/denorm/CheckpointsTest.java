package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CheckpointsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldKeepEverySliceThroughTheStoredDocument() {
        Checkpoint c = new Checkpoint(
                "rel:42:abc",
                "rel",
                "42",
                JobState.RUNNING,
                "1@host:x",
                17,
                new JobCounts(100, 40, 39, 1, 0, 2, 0, 0, 1),
                Instant.ofEpochMilli(1_000),
                Instant.ofEpochMilli(2_000),
                null,
                List.of(new Checkpoint.Slice(0, 25, true), new Checkpoint.Slice(1, 15, false)));

        Checkpoint back = Checkpoints.fromDoc(c.jobId(), Checkpoints.toDoc(c));

        assertThat(back).isEqualTo(c);
    }

    /** A job checkpointed before slices existed resumes: its document reads as a checkpoint without slices. */
    @Test
    void shouldReadACheckpointWrittenBeforeSlicesExisted() throws Exception {
        JsonNode old = JSON.readTree("""
            {"relation": "post-author", "parent_id": "42", "state": "RUNNING", "owner": "12345@host:9c1e",
             "parent_seq_no": 17, "total": 100000, "done": 35000, "written": 34990, "up_to_date": 10, "moved": 0,
             "conflicts": 3, "rejected": 0, "failed": 0, "passes": 1,
             "started_at": 1764489600000, "updated_at": 1764489611000, "error": null}""");

        Checkpoint c = Checkpoints.fromDoc("post-author:42:5f1c2a9e", old);

        assertThat(c.slices()).isEmpty();
        assertThat(c.counts()).isEqualTo(new JobCounts(100000, 35000, 34990, 10, 0, 3, 0, 0, 1));
        assertThat(c.parentSeqNo()).isEqualTo(17);
        assertThat(c.state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void shouldRefuseSlicesItCannotRead() throws Exception {
        assertThatThrownBy(() -> Checkpoints.fromDoc("j", JSON.readTree("{\"state\": \"RUNNING\", \"slices\": 3}")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("checkpoint [j]")
                .hasMessageContaining("not an array");
        assertThatThrownBy(() -> Checkpoints.fromDoc(
                        "j", JSON.readTree("{\"state\": \"RUNNING\", \"slices\": [{\"read\": 3}]}")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("malformed slice");
    }
}
