package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.doc.DocStream;
import org.junit.jupiter.api.Test;

class DenormRelationTest {

    @Test
    void shouldDefaultTheStampFieldToTheRelationName() {
        Relation r = Relation.of(b -> b.name("post-author")
                .parentIndex("users")
                .childIndex("posts")
                .parentIdField("user.id")
                .copy("name", "user.name"));
        assertThat(r.stampField()).isEqualTo("esrel.post-author");
        assertThat(r.copies()).containsExactly(new Relation.Copy("name", "user.name"));
        assertThat(r.toString()).contains("users -> posts.user.id").contains("name -> user.name");
    }

    @Test
    void shouldRefuseIncompleteOrOverlappingDeclarations() {
        assertThatThrownBy(() -> Relation.of(b -> b.name("a b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("relation name");
        assertThatThrownBy(() -> Relation.of(
                        b -> b.name("r").parentIndex("u").childIndex("p").parentIdField("uid")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("copies no field");
        assertThatThrownBy(() -> Relation.of(
                        b -> b.name("r").childIndex("p").parentIdField("uid").copy("a", "b")))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("parentIndex");
        assertThatThrownBy(() -> Relation.of(b -> b.name("r")
                        .parentIndex("u")
                        .childIndex("p")
                        .parentIdField("user.id")
                        .copy("name", "user")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> Relation.of(b -> b.name("r")
                        .parentIndex("u")
                        .childIndex("p")
                        .parentIdField("uid")
                        .copy("name", "n")
                        .copy("nick", "n")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("overlap");
        assertThatThrownBy(() -> Relation.of(b -> b.name("r")
                        .parentIndex("u")
                        .childIndex("p")
                        .parentIdField("uid")
                        .copy("name", "user..name")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("dotted field path");
    }

    @Test
    void shouldValidatePropagatorSettings() {
        assertThatThrownBy(() -> Propagator.builder().batchSize(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Propagator.builder().maxDocsPerSecond(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Propagator.builder().maxDocsPerSecond(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Propagator.builder().maxPasses(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Propagator.builder().build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("client");
        assertThatThrownBy(() -> DocStream.builder().pageSize(10_001)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSayWhichStatesAreFinished() {
        assertThat(JobState.COMPLETED.finished()).isTrue();
        assertThat(JobState.PARENT_NOT_FOUND.finished()).isTrue();
        assertThat(JobState.RUNNING.finished()).isFalse();
        assertThat(JobState.CANCELLED.finished()).isFalse();
        assertThat(JobState.FAILED.finished()).isFalse();
    }

    @Test
    void shouldRoundTripCheckpointDocuments() {
        Checkpoint c = new Checkpoint(
                "r:1:abc",
                "r",
                "1",
                JobState.RUNNING,
                "1@h:x",
                17,
                new JobCounts(100, 40, 38, 1, 1, 3, 2, 0, 1),
                java.time.Instant.ofEpochMilli(1000),
                java.time.Instant.ofEpochMilli(2000),
                null,
                java.util.List.of());
        assertThat(Checkpoints.fromDoc("r:1:abc", Checkpoints.toDoc(c))).isEqualTo(c);
        Checkpoint failed = new Checkpoint(
                "r:1:abc",
                "r",
                "1",
                JobState.FAILED,
                "1@h:x",
                17,
                new JobCounts(100, 40, 38, 1, 1, 3, 2, 0, 1),
                java.time.Instant.ofEpochMilli(1000),
                java.time.Instant.ofEpochMilli(2000),
                "boom",
                java.util.List.of());
        assertThat(Checkpoints.fromDoc("r:1:abc", Checkpoints.toDoc(failed))).isEqualTo(failed);
    }
}
