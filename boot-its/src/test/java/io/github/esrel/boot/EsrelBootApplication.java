package io.github.esrel.boot;

import io.github.esrel.join.Join;
import io.github.esrel.spring.boot.autoconfigure.JoinDefaults;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * The application: it declares no Elasticsearch client and no esrel facade. Spring Boot's auto-configuration builds
 * the client from {@code spring.elasticsearch.*}, with the transport and JSON mapper Boot picks for the libraries on the
 * class path; esrel's starter builds {@code Occ}, {@code ExternalVersions}, {@code RoutingClient}, {@code TreeLocks}
 * (for {@code esrel.locks.namespace}) and {@code EsrelMicrometer} on it. The one esrel object declared here is a
 * per-relation one, a join, built from the starter's defaults as the starter's documentation shows.
 */
// tag::application[]
@SpringBootApplication
public class EsrelBootApplication {

    /**
     * Application-side joins with the {@code esrel.join.*} caps.
     *
     * @param defaults the starter's join defaults: Boot's client and the caps
     * @return the join
     */
    @Bean
    Join join(JoinDefaults defaults) {
        return Join.of(defaults::applyTo);
    }
}
// end::application[]
