package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** What both forms of an engine rely on: a step's own exception reaches the blocking caller as it was thrown. */
class FuturesTest {

    @Test
    void shouldRunACallNowAndKeepItsResultOrItsException() throws Exception {
        assertThat(Futures.now(() -> "answer").getNow(null)).isEqualTo("answer");
        IOException lost = new IOException("connection reset");
        CompletableFuture<String> failed = Futures.now(() -> {
            throw lost;
        });
        assertThat(failed).isCompletedExceptionally();
        assertThatThrownBy(() -> Futures.await(failed)).isSameAs(lost);
    }

    @Test
    void shouldHandTheBlockingCallerTheStepsOwnException() {
        IllegalStateException mine = new IllegalStateException("the caller's own");
        CompletableFuture<String> chained = CompletableFuture.completedFuture("x")
                .thenApply(x -> {
                    throw mine;
                });
        assertThatThrownBy(() -> Futures.await(chained)).isSameAs(mine);
        Error error = new AssertionError("an error");
        assertThatThrownBy(() -> Futures.await(CompletableFuture.failedFuture(error)))
                .isSameAs(error);
    }

    @Test
    void shouldUnwrapWhatCompletableFutureWrapsOnly() {
        IOException cause = new IOException("io");
        assertThat(Futures.unwrap(new CompletionException(new ExecutionException(cause))))
                .isSameAs(cause);
        CompletionException bare = new CompletionException("no cause", null);
        assertThat(Futures.unwrap(bare)).isSameAs(bare);
        IllegalArgumentException plain = new IllegalArgumentException(cause);
        assertThat(Futures.unwrap(plain)).isSameAs(plain);
    }

    @Test
    void shouldRethrowInsideAStageWithoutWrappingTwice() {
        CompletionException wrapped = new CompletionException(new IOException("io"));
        assertThat(Futures.rethrow(wrapped)).isSameAs(wrapped);
        IOException io = new IOException("io");
        assertThat(Futures.rethrow(io)).isInstanceOf(CompletionException.class).hasCause(io);
    }

    @Test
    void shouldWaitOnATimerWithoutTheCallersThread() throws Exception {
        assertThat(Futures.delay(Duration.ZERO)).isDone();
        assertThat(Futures.delay(Duration.ofMinutes(1))).isNotDone(); // the caller's thread went on at once
        assertThat(Futures.delay(Duration.ofMillis(1)).get(10, TimeUnit.SECONDS))
                .isNull();
    }
}
