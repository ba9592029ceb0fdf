package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.internal.RestCall;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code index.max_terms_count} of child indices: how many keys one {@code terms} query may carry.
 *
 * <p>Read lazily so that a join within the default limit costs no extra round trip: an index whose
 * limit is not known yet is assumed to have Elasticsearch's default (65,536); the setting is read
 * (and cached) when a join has more keys than that, or when the cluster rejects a batch because the
 * limit is lower. The setting is dynamic, so a rejection always re-reads it.
 */
final class TermsLimits {

    private static final Logger log = LoggerFactory.getLogger(TermsLimits.class);
    private static final Pattern ALLOWED = Pattern.compile("allowed maximum of \\[(\\d+)]");
    private static final String SETTING = "index.max_terms_count";

    private final @Nullable Integer fixed;
    private final Map<String, Integer> known = new ConcurrentHashMap<>();

    /** @param fixed a limit given by the user (never read from the cluster), or {@code null} */
    TermsLimits(@Nullable Integer fixed) {
        this.fixed = fixed;
    }

    int current(String index) {
        return fixed != null ? fixed : known.getOrDefault(index, Keys.DEFAULT_MAX_TERMS_COUNT);
    }

    boolean isKnown(String index) {
        return fixed != null || known.containsKey(index);
    }

    boolean isFixed() {
        return fixed != null;
    }

    /**
     * Reads the limit from the index settings (the smallest over the indices an alias or pattern
     * names; the default where unset), caches and returns it. When the settings cannot be read (no
     * {@code view_index_metadata} privilege), falls back to the limit named in {@code rejection}.
     */
    int read(ElasticsearchClient es, String index, Trips trips, @Nullable String rejection) {
        Integer limit = null;
        try {
            trips.add("settings [" + index + "] " + SETTING);
            // Plain JSON with flat keys: the typed settings classes differ between client versions, and an
            // older client's may not parse every setting a newer server returns.
            JsonObject answer = RestCall.get(
                            "/" + RestCall.segment(index) + "/_settings/" + SETTING,
                            Map.of("include_defaults", "true", "flat_settings", "true"))
                    .sendForObject(es);
            for (JsonValue state : answer.values()) {
                Integer v = first(state.asJsonObject(), "settings", "defaults");
                int value = v == null ? Keys.DEFAULT_MAX_TERMS_COUNT : v;
                limit = limit == null ? value : Math.min(limit, value);
            }
        } catch (Exception e) {
            log.debug("reading {} of [{}] failed, falling back to the rejection message", SETTING, index, e);
        }
        if (limit == null && rejection != null) {
            Matcher m = ALLOWED.matcher(rejection);
            if (m.find()) {
                limit = Integer.parseInt(m.group(1));
            }
        }
        if (limit == null) {
            limit = Keys.DEFAULT_MAX_TERMS_COUNT;
        }
        known.put(index, Math.max(1, limit));
        return known.get(index);
    }

    private static @Nullable Integer first(JsonObject state, String... groups) {
        for (String group : groups) {
            JsonValue settings = state.get(group);
            if (settings instanceof JsonObject o && o.get(SETTING) != null) {
                return Integer.parseInt(Keys.normalize(o.get(SETTING)));
            }
        }
        return null;
    }
}
