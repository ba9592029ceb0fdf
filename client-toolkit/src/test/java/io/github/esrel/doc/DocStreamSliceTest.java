package io.github.esrel.doc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The options of a sliced stream on a shared point in time, checked before any request. */
class DocStreamSliceTest {

    @Test
    void shouldRefuseSlicesOutOfRange() {
        assertThatThrownBy(() -> DocStream.builder().slice(0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("slice max");
        assertThatThrownBy(() -> DocStream.builder().slice(0, 1025)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DocStream.builder().slice(4, 4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 0 and 3");
        assertThatThrownBy(() -> DocStream.builder().slice(-1, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRefuseAGivenPointInTimeWithRoutingOrAScroll() {
        assertThatThrownBy(() -> DocStream.builder()
                        .index("i")
                        .pointInTime("pit")
                        .routing("r")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("routing [r]");
        assertThatThrownBy(() -> DocStream.builder()
                        .index("i")
                        .pointInTime("pit")
                        .mode(DocStream.Mode.SCROLL)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("scroll");
        assertThatThrownBy(() -> DocStream.builder().pointInTime(null)).isInstanceOf(NullPointerException.class);
    }
}
