package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.doc.DocStream;
import org.junit.jupiter.api.Test;

class SlicePlanTest {

    @Test
    void shouldReadOneSlicePerShardUpToTheBound() {
        assertThat(SlicePlan.slices(8, 6, false, DocStream.Mode.AUTO)).isEqualTo(6);
        assertThat(SlicePlan.slices(4, 6, false, DocStream.Mode.POINT_IN_TIME)).isEqualTo(4);
        assertThat(SlicePlan.slices(64, 30, false, DocStream.Mode.AUTO)).isEqualTo(30);
    }

    @Test
    void shouldReadWithOneStreamWhereSlicesCannotHelpOrCannotBeShared() {
        assertThat(SlicePlan.slices(8, 1, false, DocStream.Mode.AUTO))
                .as("one shard")
                .isEqualTo(1);
        assertThat(SlicePlan.slices(8, 0, false, DocStream.Mode.AUTO))
                .as("shards unknown")
                .isEqualTo(1);
        assertThat(SlicePlan.slices(1, 6, false, DocStream.Mode.AUTO))
                .as("bound 1")
                .isEqualTo(1);
        assertThat(SlicePlan.slices(8, 6, true, DocStream.Mode.AUTO))
                .as("routed by parent")
                .isEqualTo(1);
        assertThat(SlicePlan.slices(8, 6, false, DocStream.Mode.SCROLL))
                .as("scroll")
                .isEqualTo(1);
    }
}
