package io.github.esrel.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.LockInfo;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Clients;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;

/** What both contract ITs share: the tree locks of one backend in an index of their own, and the assertions. */
final class ShedLockContract {

    private final TreeLocks treeLocks;
    private final EsrelLockProvider provider;

    ShedLockContract(ElasticsearchClient es, String index, TreeLocks.Backend backend) {
        try {
            if (!es.indices().exists(e -> e.index(index)).value()) {
                es.indices().create(c -> c.index(index));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        treeLocks = TreeLocks.builder().client(es).index(index).backend(backend).build();
        assertThat(treeLocks.backend()).isEqualTo(backend);
        provider = EsrelLockProvider.of(treeLocks);
    }

    EsrelLockProvider provider() {
        return provider;
    }

    void close() {
        treeLocks.close();
    }

    private List<TreePath> live(String name) {
        TreePath path = provider.path(name);
        return treeLocks.list(path).stream()
                .map(LockInfo::path)
                .filter(path::equals)
                .toList();
    }

    void assertLocked(String name) {
        assertThat(live(name)).as("live tree locks on the path of %s", name).hasSize(1);
    }

    void assertUnlocked(String name) {
        assertThat(live(name)).as("live tree locks on the path of %s", name).isEmpty();
    }

    /**
     * A provider whose client reaches the node through a proxy that loses the answer to the first write of each
     * {@code lock} and each {@code unlock} (the node did the work): the task's lock is taken once and held, and
     * free after the unlock, with no {@link net.javacrumbs.shedlock.support.LockException} on the way.
     */
    static void assertLostAnswersAreToldTruthfully(EsCluster cluster, String index, TreeLocks.Backend backend)
            throws IOException {
        ShedLockContract observer = new ShedLockContract(cluster.client(), index, backend);
        try (LossyProxy proxy = LossyProxy.to(cluster.httpUri())) {
            // The proxy alone: every lost answer reaches the lock client, which sends the request again.
            ElasticsearchClient lossy = Clients.connect(List.of(proxy.uri()), cluster.requestHeaders());
            TreeLocks locks = TreeLocks.builder()
                    .client(lossy)
                    .index(index)
                    .backend(backend)
                    .build();
            try {
                EsrelLockProvider provider = EsrelLockProvider.of(locks);
                for (int i = 0; i < 3; i++) {
                    String name = "lost-answers-" + i;
                    LockConfiguration config =
                            new LockConfiguration(Instant.now(), name, Duration.ofMinutes(1), Duration.ZERO);
                    proxy.dropAnswerToNext(LossyProxy.WRITES);
                    SimpleLock lock = provider.lock(config).orElseThrow();
                    observer.assertLocked(name);
                    assertThat(observer.provider().lock(config))
                            .as("held once, by the task")
                            .isEmpty();
                    proxy.dropAnswerToNext(LossyProxy.WRITES);
                    lock.unlock();
                    observer.assertUnlocked(name);
                }
                assertThat(proxy.answersDropped()).isEqualTo(6);
            } finally {
                locks.close();
                lossy._transport().close();
            }
        } finally {
            observer.close();
        }
    }
}
