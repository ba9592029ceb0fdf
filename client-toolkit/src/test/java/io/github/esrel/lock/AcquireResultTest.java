package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.ExceptionTranslator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The busy exception of {@link AcquireResult#orThrow()}, with and without the provider's translator. */
class AcquireResultTest {

    /** What a framework's translator makes of esrel's exceptions: its own type, esrel's as the cause. */
    static final class Translated extends RuntimeException {
        Translated(RuntimeException cause) {
            super("translated: " + cause.getMessage(), cause);
        }
    }

    @Test
    void shouldThrowTheBusyExceptionWithStatus409WithoutATranslator() {
        AcquireResult<TreeLock> busy = AcquireResult.busy("/a", List.of());
        assertThatThrownBy(busy::orThrow)
                .isExactlyInstanceOf(TreeLockException.class)
                .hasMessage("cannot lock /a: busy")
                .satisfies(e -> assertThat(((TreeLockException) e).status()).isEqualTo(409));
    }

    @Test
    void shouldThrowTheTranslatedExceptionKeepingTheBusyOneAsItsCause() {
        AtomicInteger calls = new AtomicInteger();
        ExceptionTranslator wrap = e -> {
            calls.incrementAndGet();
            return new Translated(e);
        };
        AcquireResult<TreeLock> busy = AcquireResult.busy("/a", List.of(), wrap);
        assertThatThrownBy(busy::orThrow)
                .isInstanceOf(Translated.class)
                .cause()
                .satisfies(cause ->
                        assertThat(((TreeLockException) cause).status()).isEqualTo(409));
        assertThat(calls).hasValue(1);
        assertThat(busy.acquired()).isFalse();
        assertThat(busy.lock()).isEmpty();
    }

    @Test
    void shouldKeepTheBusyExceptionWhenATranslatorReturnsNull() {
        AcquireResult<TreeLock> busy = AcquireResult.busy("/a", List.of(), e -> null);
        assertThatThrownBy(busy::orThrow).isExactlyInstanceOf(TreeLockException.class);
    }
}
