package io.github.esrel.denorm;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.transport.ElasticsearchTransport;
import io.github.esrel.testenv.Clients;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Runs a throttled propagation in its own JVM so that a test can {@code kill -9} it half way.
 * Arguments: http URI, users index, posts index, parent id, docs per second. Prints {@code JOB <id>}
 * when the job starts.
 */
public final class PropagationCrashChild {

    private PropagationCrashChild() {}

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        String users = args[1];
        String posts = args[2];
        String parentId = args[3];
        double rate = Double.parseDouble(args[4]);
        ElasticsearchClient es = Clients.connect(List.of(uri));
        ElasticsearchTransport transport = es._transport();
        try (transport) {
            Relation rel = Relation.of(r -> r.name("post-author")
                    .parentIndex(users)
                    .childIndex(posts)
                    .parentIdField("user.id")
                    .copy("name", "user.name")
                    .copy("email", "user.email"));
            Propagator p = Propagator.of(b -> b.client(es)
                    .relation(rel)
                    .maxDocsPerSecond(rate)
                    .batchSize(100)
                    .checkpointInterval(Duration.ZERO)
                    .listener(new PropagationListener() {
                        @Override
                        public void onStart(String jobId, String parent) {
                            System.out.println("JOB " + jobId);
                            System.out.flush();
                        }
                    }));
            PropagationResult r = p.propagate(parentId);
            System.out.println("DONE " + r);
        }
    }
}
