package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.commit.TaskScheduler;
import java.util.function.Consumer;
import org.elasticsearch.ExceptionsHelper;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.get.GetRequest;
import org.elasticsearch.action.get.GetResponse;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.index.IndexNotFoundException;
import org.jspecify.annotations.Nullable;

/** How both lock stores read a namespace's document from the lock index: in real time, answered on the scheduler. */
public final class StoreReads {

    private StoreReads() {}

    /**
     * Gets the document {@code id} of the lock index in real time and runs {@code onAnswer} on {@code scheduler} with
     * the answer, or with null while the lock index does not exist (before the first lock ever: the first write
     * creates it from its system descriptor). A failure of the get, or a {@link RuntimeException} of {@code onAnswer},
     * goes to {@code listener}. Run it in the lock index's system context.
     *
     * @param client    the node client
     * @param scheduler where the answer is handed over, never a network thread
     * @param id        the id of the document: a namespace
     * @param onAnswer  takes the answer, or null when the lock index does not exist
     * @param listener  gets the failures
     */
    public static void getRealtime(
            Client client,
            TaskScheduler scheduler,
            String id,
            Consumer<@Nullable GetResponse> onAnswer,
            ActionListener<?> listener) {
        Runnable absent = () -> onAnswer(onAnswer, null, listener);
        client.get(new GetRequest(TreeLockIndex.NAME, id).realtime(true), new ActionListener<>() {
            @Override
            public void onResponse(GetResponse response) {
                scheduler.execute(() -> onAnswer(onAnswer, response, listener));
            }

            @Override
            public void onFailure(Exception e) {
                if (ExceptionsHelper.unwrapCause(e) instanceof IndexNotFoundException) {
                    scheduler.execute(absent);
                } else {
                    listener.onFailure(e);
                }
            }
        });
    }

    private static void onAnswer(
            Consumer<GetResponse> onAnswer, @Nullable GetResponse response, ActionListener<?> listener) {
        try {
            onAnswer.accept(response);
        } catch (RuntimeException e) {
            listener.onFailure(e);
        }
    }
}
