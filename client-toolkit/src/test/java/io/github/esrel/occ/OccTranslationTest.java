package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.rest_client.RestClientTransport;
import io.github.esrel.ExceptionTranslator;
import io.github.esrel.doc.DocRef;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.http.HttpHost;
import org.elasticsearch.client.RestClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The exception translator and the start/failure events, on failures that need no server: the client points at a
 * closed port, so every request fails with an I/O error, which no retry policy retries.
 */
class OccTranslationTest {

    /** What a framework's translator makes of esrel's exceptions: its own type, esrel's as the cause. */
    static final class Translated extends RuntimeException {
        Translated(RuntimeException cause) {
            super("translated: " + cause.getMessage(), cause);
        }
    }

    private final RestClient rest =
            RestClient.builder(new HttpHost("127.0.0.1", 9)).build();
    private final ElasticsearchClient es =
            new ElasticsearchClient(new RestClientTransport(rest, new JacksonJsonpMapper()));
    private final AtomicInteger translations = new AtomicInteger();
    private final ExceptionTranslator wrap = e -> {
        translations.incrementAndGet();
        return new Translated(e);
    };
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final OccListener recording = new OccListener() {
        @Override
        public void onStart(String index, Outcome.Operation operation) {
            events.add("start " + index + " " + operation.label() + " "
                    + Thread.currentThread().getName());
        }

        @Override
        public void onFailure(
                String index, Outcome.Operation operation, RuntimeException failure, java.time.Duration took) {
            events.add("failure " + index + " " + operation.label() + " "
                    + failure.getClass().getSimpleName() + " "
                    + Thread.currentThread().getName());
        }

        @Override
        public void onOutcome(Outcome<?> outcome) {
            events.add("outcome " + outcome.status());
        }
    };
    private final Occ occ = Occ.of(b -> b.client(es).exceptionTranslator(wrap).listener(recording));

    @AfterEach
    void close() throws IOException {
        rest.close();
    }

    @Test
    void shouldTranslateTheFailureOfAnUpdateOnceKeepingTheCause() {
        assertThatThrownBy(() -> occ.update("i", "1", Map.class, m -> m))
                .isInstanceOf(Translated.class)
                .hasCauseInstanceOf(OccException.class);
        assertThat(translations).hasValue(1);
    }

    @Test
    void shouldTranslateTheTryVariantsAndGetToo() {
        assertThatThrownBy(() -> occ.tryUpsert(DocRef.of("i", "1"), Map.class, Map::of, m -> m))
                .isInstanceOf(Translated.class)
                .hasCauseInstanceOf(OccException.class);
        assertThatThrownBy(() -> occ.get("i", "1", Map.class))
                .isInstanceOf(Translated.class)
                .hasCauseInstanceOf(OccException.class);
        assertThatThrownBy(() -> occ.tryReplace(new Versioned<>("i", "1", null, Map.of("a", 1), 1, 1, 1), Map.of()))
                .isInstanceOf(Translated.class);
        assertThat(translations).hasValue(3);
    }

    @Test
    void shouldTranslateWhatABulkUpdateThrowsOnce() {
        assertThatThrownBy(() -> occ.bulk(Map.class).update("i", "1", m -> m).execute())
                .isInstanceOf(Translated.class)
                .hasCauseInstanceOf(OccException.class);
        assertThat(translations).hasValue(1);
    }

    @Test
    void shouldReportStartAndFailureOnTheCallersThreadWithTheUntranslatedException() {
        String me = Thread.currentThread().getName();
        assertThatThrownBy(() -> occ.deleteIf("i", "1", Map.class, m -> true)).isInstanceOf(Translated.class);
        assertThat(events).containsExactly("start i delete_if " + me, "failure i delete_if OccException " + me);
    }

    @Test
    void shouldLeaveExceptionsAloneWithoutATranslator() {
        Occ plain = Occ.of(b -> b.client(es));
        assertThatThrownBy(() -> plain.update("i", "1", Map.class, m -> m)).isExactlyInstanceOf(OccException.class);
    }

    @Test
    void shouldNotTranslateArgumentChecks() {
        assertThatThrownBy(() -> occ.update("i", "", Map.class, m -> m)).isInstanceOf(IllegalArgumentException.class);
        assertThat(translations).hasValue(0);
        assertThat(events).isEmpty();
    }
}
