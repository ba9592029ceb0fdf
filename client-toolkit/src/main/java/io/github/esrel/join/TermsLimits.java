package io.github.esrel.join;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.indices.GetIndicesSettingsResponse;
import co.elastic.clients.elasticsearch.indices.IndexSettings;
import co.elastic.clients.elasticsearch.indices.IndexState;
import co.elastic.clients.json.JsonData;
import io.github.esrel.internal.ClientApi;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

    private final Integer fixed;
    private final Map<String, Integer> known = new ConcurrentHashMap<>();

    /** @param fixed a limit given by the user (never read from the cluster), or {@code null} */
    TermsLimits(Integer fixed) {
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
    int read(ElasticsearchClient es, String index, Trips trips, String rejection) {
        Integer limit = null;
        try {
            trips.add("settings [" + index + "] " + SETTING);
            GetIndicesSettingsResponse r = es.indices()
                    .getSettings(g -> g.index(index).includeDefaults(true).name(SETTING));
            for (IndexState state : ClientApi.settings(r).values()) {
                Integer v = first(state.settings(), state.defaults());
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

    private static Integer first(IndexSettings... candidates) {
        for (IndexSettings s : candidates) {
            if (s == null) {
                continue;
            }
            if (s.index() != null && s.index().maxTermsCount() != null) {
                return s.index().maxTermsCount();
            }
            if (s.maxTermsCount() != null) {
                return s.maxTermsCount();
            }
            JsonData flat = s.otherSettings().get(SETTING);
            if (flat != null) {
                return Integer.parseInt(Keys.normalize(flat.toJson()));
            }
        }
        return null;
    }
}
