package io.github.esrel.view;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.transport.ElasticsearchTransport;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.testenv.Clients;
import java.net.URI;
import java.util.List;

/**
 * Writes a photo through the view in its own JVM and then hangs between the source write and the view
 * update, so that a test can {@code kill -9} it exactly there. Arguments: http URI, index prefix,
 * photo id, new title. Prints {@code WRITTEN} once the photo is stored.
 */
public final class ViewCrashChild {

    private ViewCrashChild() {}

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args[0]);
        String prefix = args[1];
        String photoId = args[2];
        String title = args[3];
        ElasticsearchClient es = Clients.connect(List.of(uri));
        ElasticsearchTransport transport = es._transport();
        try (transport) {
            MaterializedView<ObjectNode, ObjectNode> views = Photos.view(es, prefix);
            views.changeSource(photoId, () -> {
                ObjectNode photo = es.get(g -> g.index(prefix + "-photos").id(photoId), ObjectNode.class)
                        .source();
                photo.put("title", title);
                es.index(i -> i.index(prefix + "-photos").id(photoId).document(photo));
                System.out.println("WRITTEN");
                System.out.flush();
                Thread.sleep(600_000);
                return null;
            });
        }
    }
}
