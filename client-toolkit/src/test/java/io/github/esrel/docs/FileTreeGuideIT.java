package io.github.esrel.docs;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.fs.FileDoc;
import io.github.esrel.fs.FileTree;
import io.github.esrel.fs.RenameResult;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** docs/file-trees.md. */
@EsrelTest
class FileTreeGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    @Test
    void shouldWriteGrepAndRenameADirectory(ElasticsearchClient es) {
        // tag::files[]
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index("guide-files"))) {
            FileTree fs = FileTree.of(b -> b.client(es).index("guide-files").locks(locks));
            fs.createIndex(); // the mapping: paths tokenized by path_hierarchy, or computed by the client
            fs.write("/clinton/projects/elasticsearch/README.txt", "Some text about Elasticsearch");
            List<FileDoc> hits = fs.grep("/clinton", "elasticsearch"); // grep -r elasticsearch /clinton
            RenameResult moved = fs.renameDirectory("/clinton", "/zach"); // mv /clinton /zach, under locks
            // end::files[]
            assertThat(hits).hasSize(1);
            assertThat(moved.status()).isEqualTo(RenameResult.Status.DONE);
            assertThat(fs.read("/zach/projects/elasticsearch/README.txt")).isPresent();
        }
    }
}
