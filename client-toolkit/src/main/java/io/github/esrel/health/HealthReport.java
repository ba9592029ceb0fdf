package io.github.esrel.health;

import io.github.esrel.lock.TreeLocks;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What one {@link HealthProbe#check()} found: the verdict and its details, as the {@code esrel} health contributor of
 * the Spring Boot starters shows them. Immutable.
 *
 * <p>{@link #details()} has the shape:
 * <pre>{@code
 * {"plugin": {"nodes": 3, "withPlugin": 3, "version": "0.1.0", "missing": []},
 *  "locks": {"provider": "PLUGIN", "namespace": "fs", "lockIndex": ".esrel-treelocks-1", "lockIndexStatus": "green"}}
 * }</pre>
 * with an {@code "error"} in {@code locks} when they make the report DOWN, or {@code {"error": ...}} alone when the
 * cluster could not be asked.
 */
public final class HealthReport {

    private final boolean up;
    private final Map<String, Object> details;
    private final TreeLocks.@Nullable Backend provider;
    private final List<String> nodesWithoutPlugin;

    HealthReport(
            boolean up,
            Map<String, Object> details,
            TreeLocks.@Nullable Backend provider,
            List<String> nodesWithoutPlugin) {
        this.up = up;
        this.details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
        this.provider = provider;
        this.nodesWithoutPlugin = List.copyOf(nodesWithoutPlugin);
    }

    static HealthReport down(String error) {
        return new HealthReport(false, Map.of("error", error), null, List.of());
    }

    /**
     * The verdict.
     *
     * @return true if esrel can serve the application on this cluster (see {@link HealthProbe})
     */
    public boolean up() {
        return up;
    }

    /**
     * The details (see the class comment).
     *
     * @return the details, unmodifiable
     */
    public Map<String, Object> details() {
        return details;
    }

    /**
     * Why the cluster could not be asked.
     *
     * @return the reason, or empty when the cluster answered
     */
    public Optional<String> error() {
        return Optional.ofNullable((String) details.get("error"));
    }

    /**
     * The provider serving the tree locks.
     *
     * @return {@link TreeLocks.Backend#PLUGIN} or {@link TreeLocks.Backend#DOCUMENTS}; empty without tree locks or
     *     when the cluster could not be asked
     */
    public Optional<TreeLocks.Backend> provider() {
        return Optional.ofNullable(provider);
    }

    /**
     * The nodes that do not list the esrel plugin, by name.
     *
     * @return the names, empty when every node has it (or the cluster could not be asked)
     */
    public List<String> nodesWithoutPlugin() {
        return nodesWithoutPlugin;
    }

    @Override
    public String toString() {
        return (up ? "UP " : "DOWN ") + details;
    }
}
