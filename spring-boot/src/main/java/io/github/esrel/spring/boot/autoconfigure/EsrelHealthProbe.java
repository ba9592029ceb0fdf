package io.github.esrel.spring.boot.autoconfigure;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.health.HealthProbe;
import io.github.esrel.health.HealthReport;
import io.github.esrel.lock.TreeLocks;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * What the {@code esrel} health contributor reports, for either Boot line (each line's indicator only maps the
 * {@link Check} onto its own {@code Health}): the client's public {@link HealthProbe} on the application's client and
 * {@code TreeLocks} bean, bounded by {@code esrel.health.timeout}, with its details named after the starter's
 * properties where they point at one.
 */
final class EsrelHealthProbe {

    /** What one check found. */
    record Check(boolean up, Map<String, Object> details) {}

    private final HealthProbe probe;
    private final boolean withLocks;

    /**
     * @param locks the application's {@code TreeLocks} bean, or {@code null}
     */
    EsrelHealthProbe(ElasticsearchClient client, @Nullable TreeLocks locks, Duration timeout) {
        this.probe = HealthProbe.of(b -> b.client(client).treeLocks(locks).timeout(timeout));
        this.withLocks = locks != null;
    }

    /** The probe of the auto-configuration's contributor (either line's): the beans and properties it reads. */
    static EsrelHealthProbe of(
            ElasticsearchClient client, ObjectProvider<TreeLocks> locks, EsrelProperties properties) {
        return new EsrelHealthProbe(
                client, locks.getIfUnique(), properties.getHealth().getTimeout());
    }

    /** Runs the check within the timeout; never throws. */
    Check check() {
        HealthReport report = probe.check();
        Map<String, Object> details = new LinkedHashMap<>(report.details());
        if (report.error()
                .filter(e -> e.startsWith("no answer from the cluster"))
                .isPresent()) {
            details.put("error", report.error().get() + " (esrel.health.timeout)");
        }
        if (!withLocks && details.containsKey("locks")) {
            details.put("locks", "no TreeLocks bean (esrel.locks.namespace is not set)");
        }
        return new Check(report.up(), details);
    }
}
