package io.github.esrel.plugin.lock.table;

import io.github.esrel.plugin.lock.commit.TaskScheduler;
import io.github.esrel.plugin.lock.commit.VersionedStore;
import io.github.esrel.plugin.lock.store.LockIndexFailures;
import io.github.esrel.plugin.lock.store.LockState;
import io.github.esrel.plugin.lock.store.StoreReads;
import io.github.esrel.plugin.lock.store.TableDocument;
import io.github.esrel.plugin.lock.store.TreeLockIndex;
import java.util.function.LongSupplier;
import org.elasticsearch.action.ActionListener;
import org.elasticsearch.action.DocWriteResponse;
import org.elasticsearch.action.index.IndexRequest;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.xcontent.XContentFactory;

/**
 * The lock tables in the lock index {@link TreeLockIndex#NAME} as esrel 0.1 stored them ({@code
 * esrel.treelock.store: table}): one document per namespace ({@link TableDocument}), its id the namespace, read in
 * real time and replaced with {@code if_seq_no}/{@code if_primary_term} (created with {@code op_type: create} the
 * first time), so that a change costs what the table holds. The grant store is the default, and takes a table this
 * store wrote over on its first change. Its callers run it in the lock index's system context.
 */
public final class LockTableStore implements VersionedStore<LockState> {

    private final Client client;
    private final TaskScheduler scheduler;
    private final LongSupplier clock;

    /**
     * Creates the store of a node.
     *
     * @param client    the node client
     * @param scheduler where responses are handed over, so that parsing and deciding never run on a network thread
     * @param clock     epoch milliseconds, stored as {@code updated_at}
     */
    public LockTableStore(Client client, TaskScheduler scheduler, LongSupplier clock) {
        this.client = client;
        this.scheduler = scheduler;
        this.clock = clock;
    }

    @Override
    public void read(String namespace, ActionListener<Versioned<LockState>> listener) {
        StoreReads.getRealtime(
                client,
                scheduler,
                namespace,
                // A table that cannot be read fails the listener; the listener's own failure is not caught here.
                table -> ActionListener.completeWith(
                        listener,
                        () -> table != null && table.isExists()
                                ? new Versioned<>(
                                        TableDocument.fromSource(table.getSourceAsMap())
                                                .state(clock.getAsLong()),
                                        true,
                                        table.getSeqNo(),
                                        table.getPrimaryTerm())
                                : Versioned.absent(LockState.empty())),
                listener);
    }

    @Override
    public void write(String namespace, Versioned<LockState> read, LockState next, ActionListener<Void> listener) {
        IndexRequest write;
        try {
            write = TreeLockIndex.replacing(
                    namespace,
                    TableDocument.of(next, clock.getAsLong())
                            .toXContent(XContentFactory.jsonBuilder(), namespace, clock.getAsLong()),
                    read);
        } catch (Exception e) {
            listener.onFailure(e);
            return;
        }
        client.index(write, new ActionListener<DocWriteResponse>() {
            @Override
            public void onResponse(DocWriteResponse response) {
                scheduler.execute(() -> listener.onResponse(null));
            }

            @Override
            public void onFailure(Exception e) {
                listener.onFailure(e);
            }
        });
    }

    @Override
    public Failure classify(Exception failure) {
        return LockIndexFailures.classify(failure);
    }

    @Override
    public Exception gaveUp(String namespace, Retries retries) {
        return LockIndexFailures.gaveUp(namespace, retries);
    }
}
