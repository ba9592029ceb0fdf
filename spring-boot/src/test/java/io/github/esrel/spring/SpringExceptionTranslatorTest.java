package io.github.esrel.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLockException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.dao.CannotAcquireLockException;

/** The translation of the exceptions a test can make without a cluster; an OCC give-up is the IT's. */
class SpringExceptionTranslatorTest {

    private final SpringExceptionTranslator translator = new SpringExceptionTranslator();

    @Test
    void shouldTurnABusyLockIntoCannotAcquireLockExceptionKeepingTheConflicts() {
        List<LockConflict> conflicts =
                List.of(new LockConflict("/a", LockMode.EXCLUSIVE, "other", Instant.parse("2026-12-02T15:00:00Z")));
        TreeLockException busy = new TreeLockException("cannot lock /a: held", 409, null, conflicts);

        RuntimeException translated = translator.translate(busy);

        assertThat(translated)
                .isInstanceOf(CannotAcquireLockException.class)
                .isInstanceOf(EsrelCannotAcquireLockException.class)
                .hasMessage("cannot lock /a: held")
                .hasCause(busy);
        assertThat(((EsrelCannotAcquireLockException) translated).conflicts()).isEqualTo(conflicts);
    }

    @Test
    void shouldLeaveEveryOtherExceptionAsItIs() {
        TreeLockException unavailable = new TreeLockException("no answer", TreeLockException.UNAVAILABLE, null);
        IllegalStateException closed = new IllegalStateException("closed");

        assertThat(translator.translate(unavailable)).isSameAs(unavailable);
        assertThat(translator.translate(closed)).isSameAs(closed);
    }
}
