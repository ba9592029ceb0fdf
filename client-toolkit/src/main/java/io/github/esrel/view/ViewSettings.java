package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.JsonTrees;
import io.github.esrel.internal.Listeners;
import io.github.esrel.retry.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link MaterializedView} was built with (see its {@link MaterializedView.Builder}), handed to
 * the classes that do its work so that none of them reads another's fields. Immutable; the listener and
 * the client are shared, as the builder's caller gave them.
 *
 * @param client the adopted client (see {@code internal.Clients})
 * @param name keys the view's clock and intents in the state index
 * @param sourceIndex the "many"-side index; one view per document
 * @param parentIndex the "one"-side index, read by id
 * @param viewIndex where the views live, by the ids of their sources
 * @param parentIdField the source field holding the parent's id
 * @param stateIndex the one-shard index of the clock and the intents
 * @param metaField the view field holding the bookkeeping
 * @param batchSize views per read and write batch, and documents per streamed page
 * @param maxRounds snapshot attempts per view while its sources keep changing
 * @param retryPolicy for rejected (429) writes
 * @param readPolicy for reads: the retry policy with its predicate narrowed to rejections (429)
 * @param listener follows rebuilds and repairs
 * @param refreshBeforeFanOut whether a parent's sources are searched only after a refresh
 * @param intentRetention how long a cleared intent's marker is kept (see {@link StateStore})
 * @param clock the wall clock intents are stamped and collected by
 */
record ViewSettings(
        ElasticsearchClient client,
        String name,
        String sourceIndex,
        String parentIndex,
        String viewIndex,
        String parentIdField,
        String stateIndex,
        String metaField,
        int batchSize,
        int maxRounds,
        RetryPolicy retryPolicy,
        RetryPolicy readPolicy,
        ViewListener listener,
        boolean refreshBeforeFanOut,
        Duration intentRetention,
        Clock clock) {

    ViewSettings {
        // In the order the builder's Javadoc names the required settings, so that a caller who left out
        // several is told about the first one first, as before the settings were a record.
        Objects.requireNonNull(client, "client cannot be null");
        Objects.requireNonNull(name, "name cannot be null");
        Objects.requireNonNull(sourceIndex, "sourceIndex cannot be null");
        Objects.requireNonNull(parentIndex, "parentIndex cannot be null");
        Objects.requireNonNull(viewIndex, "viewIndex cannot be null");
        Objects.requireNonNull(parentIdField, "parentIdField cannot be null");
        Objects.requireNonNull(stateIndex, "stateIndex cannot be null");
        Objects.requireNonNull(metaField, "metaField cannot be null");
        Objects.requireNonNull(retryPolicy, "retryPolicy cannot be null");
        Objects.requireNonNull(readPolicy, "readPolicy cannot be null");
        Objects.requireNonNull(listener, "listener cannot be null");
        Objects.requireNonNull(intentRetention, "intentRetention cannot be null");
        Objects.requireNonNull(clock, "clock cannot be null");
    }

    /** The parent a source document names, or {@code null} when it names none. */
    @Nullable
    String parentIdOf(ObjectNode source) {
        return JsonTrees.idText(JsonTrees.get(source, parentIdField));
    }

    /** Calls the listener so that a listener that throws cannot break the rebuild or repair it follows. */
    void tell(Consumer<ViewListener> call, String method) {
        Listeners.safely(() -> call.accept(listener), "ViewListener." + method);
    }
}
