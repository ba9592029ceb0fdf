package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.ErrorResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which failures leave a lock request's outcome unknown, and how such a request is sent again. */
class LostAnswersTest {

    private final List<Duration> pauses = new ArrayList<>();
    private final LostAnswers lostAnswers = new LostAnswers(pauses::add);

    private static TreeLockException lost() {
        return new TreeLockException(
                "cannot lock /a in [fs]: connection closed", 0, new IOException("Connection closed"));
    }

    private static ElasticsearchException answered(int status) {
        return answered(status, "some_exception", "why");
    }

    private static ElasticsearchException answered(int status, String type, String reason) {
        return new ElasticsearchException(
                "esrel._treelock.acquire",
                ErrorResponse.of(e -> e.status(status).error(c -> c.type(type).reason(reason))));
    }

    @Test
    void shouldTellALostAnswerFromAnAnswer() {
        assertThat(LostAnswers.isLost(lost())).isTrue();
        assertThat(LostAnswers.isLost(new IOException("reset"))).isTrue();
        assertThat(LostAnswers.isLost(new TreeLockException("gateway", 503, answered(502))))
                .isTrue();
        assertThat(LostAnswers.isLost(new TreeLockException("gateway", 503, answered(504))))
                .isTrue();
        // The node answered: what it did is known, even when it gave up.
        assertThat(LostAnswers.isLost(new TreeLockException("gave up", 503, answered(503))))
                .isFalse();
        assertThat(LostAnswers.isLost(new TreeLockException("no index", 404, answered(404))))
                .isFalse();
        assertThat(LostAnswers.isLost(new TreeLockException("interrupted", 0, new InterruptedException())))
                .isFalse();
        assertThat(LostAnswers.isLost(new TreeLockException("no cause", 0, null)))
                .isFalse();
        // A copy sent again without its body (Rest5Client does so): the node never saw the request as sent.
        assertThat(LostAnswers.isLost(new TreeLockException(
                        "empty", 400, answered(400, "parse_exception", "request body is required"))))
                .isTrue();
        assertThat(LostAnswers.isLost(new TreeLockException(
                        "empty",
                        400,
                        answered(
                                400,
                                "illegal_argument_exception",
                                "request body is required, e.g. {\"path\": \"/a\"}"))))
                .isTrue();
        assertThat(LostAnswers.isLost(new TreeLockException(
                        "bad", 400, answered(400, "parse_exception", "unknown field [grant_id]"))))
                .isFalse();
    }

    @Test
    void shouldSendALostRequestAgainUntilItIsAnswered() {
        AtomicInteger sends = new AtomicInteger();
        LostAnswers.Sent<String> sent = lostAnswers.send(
                () -> {
                    if (sends.incrementAndGet() < 3) {
                        throw lost();
                    }
                    return "answered";
                },
                System.nanoTime() + Duration.ofMinutes(1).toNanos());
        assertThat(sent.answer()).isEqualTo("answered");
        assertThat(sent.sends()).isEqualTo(3);
        assertThat(sent.resent()).isTrue();
        assertThat(pauses).containsExactly(Duration.ofMillis(50), Duration.ofMillis(100));
    }

    @Test
    void shouldGiveUpAfterFiveSendsSayingHowManyWentUnanswered() {
        AtomicInteger sends = new AtomicInteger();
        assertThatThrownBy(() -> lostAnswers.send(() -> {
                    sends.incrementAndGet();
                    throw lost();
                }))
                .isInstanceOfSatisfying(TreeLockException.class, e -> {
                    assertThat(e.getMessage())
                            .contains("connection closed")
                            .endsWith("(no answer to 5 sends of the request)");
                    assertThat(LostAnswers.isLost(e)).as("still unknown").isTrue();
                });
        assertThat(sends).hasValue(LostAnswers.MAX_SENDS);
        assertThat(pauses).hasSize(LostAnswers.MAX_SENDS - 1);
        assertThat(pauses.stream().mapToLong(Duration::toMillis).sum()).isEqualTo(50 + 100 + 200 + 400);
    }

    @Test
    void shouldNeitherSendAgainWhatWasAnsweredNorPastTheDeadline() {
        AtomicInteger sends = new AtomicInteger();
        assertThatThrownBy(() -> lostAnswers.send(() -> {
                    sends.incrementAndGet();
                    throw new TreeLockException("refused", 400, answered(400));
                }))
                .hasMessage("refused");
        assertThat(sends).hasValue(1);
        assertThatThrownBy(() -> lostAnswers.send(
                        () -> {
                            sends.incrementAndGet();
                            throw lost();
                        },
                        System.nanoTime() - 1))
                .hasMessageEndingWith("(no answer to 1 send of the request)");
        assertThat(sends).hasValue(2);
        assertThat(pauses).isEmpty();
    }
}
