package io.github.esrel.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** docs/metrics.md: the meters wired by hand, as an application without Spring Boot does. */
@EsrelTest
class MetersGuideIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    /** A counter document. */
    record Counter(long n) {}

    @Test
    void shouldMeterTheCallsOfTheListenersItGives(ElasticsearchClient es) throws IOException {
        MeterRegistry registry = new SimpleMeterRegistry();
        ObservationRegistry observations = TestObservationRegistry.create();
        es.indices().create(c -> c.index("guide-meters"));
        // tag::meters[]
        EsrelMicrometer meters = EsrelMicrometer.builder()
                .registry(registry) // the application's MeterRegistry
                .observations(observations) // optional: an Observation per call that spans several requests
                .tags(Tags.of("app", "shop")) // optional: added to every meter
                .build();
        Occ occ = Occ.of(b -> b.client(es).listener(meters.occListener()));
        TreeLocks locks = TreeLocks.of(b -> b.client(es).index("guide-meters").listener(meters.lockListener()));
        // and a Propagator's listener(meters.propagationListener()), a MaterializedView's
        // listener(meters.viewListener())
        // end::meters[]
        try {
            occ.upsert("guide-meters", "n", Counter.class, () -> new Counter(0), c -> new Counter(c.n() + 1));
            locks.acquire("/a", LockMode.EXCLUSIVE).orThrow().close();
        } finally {
            locks.close();
        }
        assertThat(registry.get("esrel.occ.calls").tag("app", "shop").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("esrel.lock.acquire")
                        .tag("outcome", "granted")
                        .timer()
                        .count())
                .isEqualTo(1);
    }
}
