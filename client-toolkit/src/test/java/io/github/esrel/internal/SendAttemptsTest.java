package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** When the low-level client may send another copy of a request that changes something. */
class SendAttemptsTest {

    private final SendAttempts attempts = new SendAttempts();

    @Test
    void shouldSendTheFirstCopy() {
        attempts.next();
        assertThat(attempts.copies()).isEqualTo(1);
    }

    @Test
    void shouldSendAgainWhenTheFirstCopyNeverReachedANode() {
        attempts.next();
        attempts.failed(new ConnectException("Connection refused"));
        attempts.next();
        attempts.failed(new IOException("wrapped", new UnknownHostException("es-3")));
        attempts.next();
        attempts.failed(new ConnectTimeoutException("connect timed out"));
        attempts.next();
        assertThat(attempts.copies()).isEqualTo(4);
    }

    @Test
    void shouldRefuseAnotherCopyWhenTheConnectionFailedAfterSending() {
        attempts.next();
        IOException closed = new IOException("Connection closed");
        attempts.failed(closed);

        assertThatThrownBy(attempts::next)
                .isInstanceOfSatisfying(ResendRefusedException.class, e -> {
                    assertThat(e.earlierFailure()).isSameAs(closed);
                    assertThat(e.getCause())
                            .as("no IOException cause: RetryConfig would retry it")
                            .isNull();
                })
                .hasMessageContaining("copy 1 failed after it was sent")
                .hasMessageContaining("Connection closed");
        assertThat(attempts.copies()).isEqualTo(1);
    }

    @Test
    void shouldRefuseAnotherCopyAfterASocketTimeoutOrNoReportAtAll() {
        attempts.next();
        attempts.failed(new SocketTimeoutException("Read timed out"));
        assertThatThrownBy(attempts::next).isInstanceOf(ResendRefusedException.class);

        SendAttempts silent = new SendAttempts();
        silent.next();
        assertThatThrownBy(silent::next)
                .isInstanceOf(ResendRefusedException.class)
                .hasMessageContaining("never reported back");
    }

    @Test
    void shouldSendAgainAfterARejection() {
        attempts.next();
        attempts.answered(429);
        attempts.next();
        assertThat(attempts.copies()).isEqualTo(2);
    }

    @Test
    void shouldSendAgainAfterAServerErrorThatSaysNothingWasExecuted() {
        attempts.next();
        attempts.answered(503);
        body("{\"error\":{\"root_cause\":[{\"type\":\"unavailable_shards_exception\",\"reason\":\"[i][0] primary shard"
                + " is not active\"}],\"type\":\"unavailable_shards_exception\",\"reason\":\"...\"},\"status\":503}");
        attempts.next();

        attempts.answered(503);
        body("{\"error\":{\"type\":\"cluster_block_exception\",\"reason\":\"blocked\"},\"status\":503}");
        attempts.next();
        assertThat(attempts.copies()).isEqualTo(3);
    }

    @Test
    void shouldRefuseAnotherCopyAfterAServerErrorThatMayHideAnExecutedWrite() {
        attempts.next();
        attempts.answered(503);
        body("{\"error\":{\"type\":\"node_closed_exception\",\"reason\":\"node closed\"},\"status\":503}");
        assertThatThrownBy(attempts::next)
                .isInstanceOf(ResendRefusedException.class)
                .hasMessageContaining("answered with status 503")
                .hasMessageContaining("node_closed_exception");

        SendAttempts proxy = new SendAttempts();
        proxy.next();
        proxy.answered(504);
        byte[] page = "<html>504 Gateway Time-out</html>".getBytes(StandardCharsets.UTF_8);
        proxy.body(page, 0, page.length);
        assertThatThrownBy(proxy::next).isInstanceOf(ResendRefusedException.class);
    }

    @Test
    void shouldKeepTheAnswerWhenReadingItsBodyFails() {
        attempts.next();
        attempts.answered(200);
        attempts.failed(new IOException("Connection reset"));
        assertThatThrownBy(attempts::next)
                .isInstanceOf(ResendRefusedException.class)
                .hasMessageContaining("answered with status 200");
    }

    @Test
    void shouldTellAFailureToConnectFromOneAfterSending() {
        assertThat(SendAttempts.beforeConnecting(new ConnectException())).isTrue();
        assertThat(SendAttempts.beforeConnecting(new IOException(new ConnectTimeoutException("x"))))
                .isTrue();
        assertThat(SendAttempts.beforeConnecting(new IOException("Connection reset by peer")))
                .isFalse();
        assertThat(SendAttempts.beforeConnecting(new SocketTimeoutException())).isFalse();
    }

    private void body(String json) {
        attempts.body(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
    }

    /** Named as both HTTP client lines name theirs. */
    private static final class ConnectTimeoutException extends java.io.InterruptedIOException {
        ConnectTimeoutException(String message) {
            super(message);
        }
    }
}
