package io.github.esrel.boot;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.join.Join;
import io.github.esrel.routing.RoutingClient;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The application: it declares no Elasticsearch client, so the one every test uses is the one Spring Boot's
 * auto-configuration builds from {@code spring.elasticsearch.*}, with the transport and JSON mapper Boot picks for the
 * libraries on the class path. esrel's stateless entry points are beans built on it, as an application would wire
 * them; the tests build the others ({@code Occ}, {@code TreeLocks}) with options of their own.
 */
@SpringBootApplication
public class EsrelBootApplication {

    /**
     * The routing calculator: the plugin when the cluster has it, else cluster state.
     *
     * @param es Boot's client
     * @return the routing client
     */
    @Bean
    RoutingClient routingClient(ElasticsearchClient es) {
        return RoutingClient.of(b -> b.client(es));
    }

    /**
     * Application-side joins.
     *
     * @param es Boot's client
     * @return the join
     */
    @Bean
    Join join(ElasticsearchClient es) {
        return Join.of(b -> b.client(es));
    }
}
