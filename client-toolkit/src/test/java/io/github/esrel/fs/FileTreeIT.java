package io.github.esrel.fs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.RestCall;
import io.github.esrel.lock.LockInfo;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** {@link AbstractFileTreeIT} with both lock providers on one real node. */
@EsrelTest
class FileTreeIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Nested
    class WithPluginLocks extends AbstractFileTreeIT {
        @Override
        ElasticsearchClient es() {
            return cluster.client();
        }

        @Override
        TreeLocks.Backend backend() {
            return TreeLocks.Backend.PLUGIN;
        }

        @Override
        URI httpUri() {
            return cluster.httpUri();
        }

        /**
         * A rename whose lease ends mid-way (here: its lock is released under it, as if it had expired
         * during a long pause) while another process renames the same directory: the stale rename's
         * next writes carry an older fencing token and Elasticsearch refuses them.
         */
        @Test
        void shouldFenceOffTheLateWritesOfARenameWhoseLeaseEnded() throws Exception {
            bulkWrite("/clinton", 300);
            CountDownLatch paused = new CountDownLatch(1);
            CountDownLatch resume = new CountDownLatch(1);
            AtomicLong staleToken = new AtomicLong();
            FileTree stale = FileTree.of(b -> b.client(es())
                    .index(index)
                    .locks(locks)
                    .batchSize(100)
                    .listener(new RenameListener() {
                        @Override
                        public void started(String from, String to, long total, long token) {
                            staleToken.set(token);
                        }

                        @Override
                        public void progress(long done, long total) {
                            if (paused.getCount() > 0) {
                                paused.countDown();
                                await(resume);
                            }
                        }
                    }));
            CompletableFuture<RenameResult> staleRename =
                    CompletableFuture.supplyAsync(() -> stale.renameDirectory("/clinton", "/zach"));
            assertThat(paused.await(60, TimeUnit.SECONDS)).isTrue();

            // The lease ends: the locks of the paused rename are gone (released here, as expiry would).
            for (String path : List.of("/clinton", "/zach")) {
                for (LockInfo held : locks.list(TreePath.of(path))) {
                    for (LockInfo.Holder h : held.holders()) {
                        RestCall.post(
                                        "/" + index + "/_treelock/release",
                                        Map.of(),
                                        Map.of("path", held.path().value(), "owner", h.owner(), "token", h.token()))
                                .send(es());
                    }
                }
            }
            RenameResult newer;
            try (TreeLocks otherProcess = locks("worker-2")) {
                newer = FileTree.of(b -> b.client(es()).index(index).locks(otherProcess))
                        .renameDirectory("/clinton", "/bob");
            }
            resume.countDown();
            RenameResult late = staleRename.get(120, TimeUnit.SECONDS);

            assertThat(newer.status()).isEqualTo(RenameResult.Status.DONE);
            assertThat(newer.token()).isGreaterThan(staleToken.get());
            assertThat(late.status()).as("the stale rename").isEqualTo(RenameResult.Status.FENCED);
            assertThat(late.moved()).isEqualTo(100);
            assertThat(fs.count("/bob"))
                    .as("the newer rename's files were not overwritten")
                    .isEqualTo(200);
            assertThat(fs.count("/zach"))
                    .as("only the page written before the lease ended")
                    .isEqualTo(100);
        }
    }

    @Nested
    class WithLockDocuments extends AbstractFileTreeIT {
        @Override
        ElasticsearchClient es() {
            return cluster.client();
        }

        @Override
        TreeLocks.Backend backend() {
            return TreeLocks.Backend.DOCUMENTS;
        }

        @Override
        URI httpUri() {
            return cluster.httpUri();
        }
    }
}
