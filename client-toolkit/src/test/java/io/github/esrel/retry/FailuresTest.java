package io.github.esrel.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    void shouldWalkTheCauseChainOutermostFirst() {
        IOException root = new IOException("disk on fire");
        IllegalStateException mid = new IllegalStateException("mid", root);
        RuntimeException outer = new RuntimeException("outer", mid);
        assertThat(Failures.causes(outer)).containsExactly(outer, mid, root);
        assertThat(Failures.causes(root)).containsExactly(root);
        assertThat(Failures.causes(null)).isEmpty();
    }

    @Test
    void shouldEndACyclicCauseChain() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(Failures.causes(a)).containsExactly(a, b);
    }
}
