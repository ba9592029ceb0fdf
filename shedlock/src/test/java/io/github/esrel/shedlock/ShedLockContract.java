package io.github.esrel.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.LockInfo;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

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
}
