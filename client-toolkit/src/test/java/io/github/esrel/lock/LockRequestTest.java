package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.path.TreePath;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LockRequestTest {

    @Test
    void shouldDefaultToAnExclusiveFailFastRenewedLock() {
        LockRequest r = LockRequest.of(b -> b.path("/a/b"));
        assertThat(r.path()).isEqualTo(TreePath.of("/a/b"));
        assertThat(r.mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(r.owner()).isNull();
        assertThat(r.ttl()).isNull();
        assertThat(r.maxWait()).isZero();
        assertThat(r.autoRenew()).isTrue();
        assertThat(r.listener()).isSameAs(TreeLockListener.NO_OP);
        assertThat(r.toString()).isEqualTo("exclusive /a/b");
    }

    @Test
    void shouldBindToTheUserOnlyWhenAsked() {
        assertThat(LockRequest.exclusive("/a").bindToUser()).isFalse();
        LockRequest bound = LockRequest.of(b -> b.path("/a").bindToUser(true));
        assertThat(bound.bindToUser()).isTrue();
        assertThat(bound.toString()).isEqualTo("exclusive /a bound to the user");
        assertThat(bound.toBuilder().build().bindToUser()).isTrue();
        assertThat(bound.toBuilder().bindToUser(false).build().bindToUser()).isFalse();
    }

    @Test
    void shouldCallOnlyTheUnavailableStoreRetryable() {
        assertThat(new TreeLockException("gave up", 503, null).retryable()).isTrue();
        assertThat(new TreeLockException("refused", 403, null).retryable()).isFalse();
        assertThat(new TreeLockException("no answer", 0, null).retryable()).isFalse();
        assertThat(TreeLockException.providerStatus(502)).isEqualTo(503);
        assertThat(TreeLockException.providerStatus(504)).isEqualTo(503);
        assertThat(TreeLockException.providerStatus(409)).isEqualTo(409);
    }

    @Test
    void shouldBuildTheSeedsLocks() {
        assertThat(LockRequest.global().path().isRoot()).isTrue();
        assertThat(LockRequest.global().mode()).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockRequest.shared("/a").mode()).isEqualTo(LockMode.SHARED);
        assertThat(LockRequest.exclusive("/a").mode()).isEqualTo(LockMode.EXCLUSIVE);
        LockRequest full = LockRequest.of(b -> b.path("/x")
                .mode(LockMode.SHARED)
                .owner("w")
                .ttl(Duration.ofSeconds(3))
                .maxWait(Duration.ofSeconds(2))
                .autoRenew(false));
        assertThat(full.toString()).isEqualTo("shared /x for w ttl 3000ms waiting up to 2000ms without renewal");
        assertThat(full.toBuilder().mode(LockMode.EXCLUSIVE).build().owner()).isEqualTo("w");
    }

    @Test
    void shouldRejectInvalidRequestsNamingTheProblem() {
        assertThatThrownBy(() -> LockRequest.exclusive("a/b")).hasMessageContaining("absolute");
        assertThatThrownBy(() -> LockRequest.exclusive("/a/../b")).hasMessageContaining("'..'");
        assertThatThrownBy(() -> LockRequest.of(b -> b.path("/a").owner(" ")))
                .hasMessageContaining("owner must not be blank");
        assertThatThrownBy(() -> LockRequest.of(b -> b.path("/a").owner("é".repeat(129))))
                .hasMessageContaining("at most 256 UTF-8 bytes, got 258");
        assertThat(LockRequest.of(b -> b.path("/a").owner("é".repeat(128))).owner())
                .hasSize(128);
        assertThatThrownBy(() -> LockRequest.of(b -> b.path("/a").ttl(Duration.ZERO)))
                .hasMessageContaining("ttl must be positive");
        assertThatThrownBy(() -> LockRequest.of(b -> b.path("/a").ttl(Duration.ofNanos(10))))
                .hasMessageContaining("1 ms");
        assertThatThrownBy(() -> LockRequest.of(b -> b.path("/a").maxWait(Duration.ofMillis(-1))))
                .hasMessageContaining("maxWait must not be negative");
        assertThatThrownBy(() -> LockRequest.of(b -> b.mode(LockMode.SHARED)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("path");
    }

    @Test
    void shouldNameModesAsTheApiDoes() {
        assertThat(LockMode.SHARED.jsonName()).isEqualTo("shared");
        assertThat(LockMode.fromJsonName("EXCLUSIVE")).isEqualTo(LockMode.EXCLUSIVE);
        assertThatThrownBy(() -> LockMode.fromJsonName("read")).hasMessageContaining("\"shared\" or \"exclusive\"");
        assertThat(LockMode.SHARED.compatibleWith(LockMode.SHARED)).isTrue();
        assertThat(LockMode.SHARED.compatibleWith(LockMode.EXCLUSIVE)).isFalse();
        assertThat(LockMode.EXCLUSIVE.compatibleWith(LockMode.SHARED)).isFalse();
        assertThat(LockMode.EXCLUSIVE.compatibleWith(LockMode.EXCLUSIVE)).isFalse();
    }

    @Test
    void shouldTurnABusyResultIntoAnExceptionOnlyWhenAsked() {
        AcquireResult<String> busy = AcquireResult.busy(
                "exclusive /a", java.util.List.of(new LockConflict("/a", LockMode.SHARED, "w", null)));
        assertThat(busy.acquired()).isFalse();
        assertThat(busy.lock()).isEmpty();
        assertThatThrownBy(busy::orThrow).isInstanceOfSatisfying(TreeLockException.class, e -> {
            assertThat(e.status()).isEqualTo(409);
            assertThat(e.conflicts()).hasSize(1);
            assertThat(e.getMessage()).isEqualTo("cannot lock exclusive /a: held as [shared /a held by w]");
            assertThat(io.github.esrel.retry.Failures.isVersionConflict(e)).isTrue();
        });
        AcquireResult<String> ok = AcquireResult.acquired("lock");
        assertThat(ok.orThrow()).isEqualTo("lock");
        assertThat(ok.conflicts()).isEmpty();
    }
}
