package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ReasonsTest {

    @Test
    void shouldFindTheRootOfTheCauseChain() {
        IOException root = new IOException("disk on fire");
        RuntimeException outer = new RuntimeException("outer", new IllegalStateException("mid", root));
        assertThat(Reasons.root(outer)).isSameAs(root);
        assertThat(Reasons.root(root)).isSameAs(root);
    }

    @Test
    void shouldFindTheRootOfACyclicCauseChain() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(Reasons.root(a)).isSameAs(b);
    }
}
