package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ReasonsTest {

    @Test
    void shouldWalkTheCauseChainOutermostFirstAndFindItsRoot() {
        IOException root = new IOException("disk on fire");
        IllegalStateException mid = new IllegalStateException("mid", root);
        RuntimeException outer = new RuntimeException("outer", mid);
        assertThat(Reasons.causes(outer)).containsExactly(outer, mid, root);
        assertThat(Reasons.root(outer)).isSameAs(root);
        assertThat(Reasons.root(root)).isSameAs(root);
        assertThat(Reasons.causes(null)).isEmpty();
    }

    @Test
    void shouldEndACyclicCauseChain() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(Reasons.causes(a)).containsExactly(a, b);
        assertThat(Reasons.root(a)).isSameAs(b);
    }
}
