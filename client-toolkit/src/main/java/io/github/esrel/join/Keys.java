package io.github.esrel.join;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import jakarta.json.JsonArray;
import jakarta.json.JsonNumber;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/** Join keys: read from hits, normalized to strings, split into terms batches. */
final class Keys {

    /** Elasticsearch's default {@code index.max_terms_count}. */
    static final int DEFAULT_MAX_TERMS_COUNT = 65_536;

    private Keys() {}

    /**
     * The key of a hit: its {@code _id} for {@value JoinQuery#ID}, else the first value of the field as
     * returned in {@code fields}; {@code null} when the hit has no value.
     */
    static @Nullable String of(Hit<?> hit, String field) {
        if (JoinQuery.ID.equals(field)) {
            return hit.id();
        }
        List<String> values = values(hit.fields(), field);
        return values.isEmpty() ? null : values.get(0);
    }

    /** Every value of {@code field} in a hit's {@code fields}, normalized; empty when absent. */
    static List<String> values(Map<String, JsonData> fields, String field) {
        JsonData data = fields == null ? null : fields.get(field);
        if (data == null) {
            return List.of();
        }
        JsonValue v = data.toJson();
        List<String> out = new ArrayList<>();
        if (v instanceof JsonArray array) {
            for (JsonValue item : array) {
                String s = normalize(item);
                if (s != null) {
                    out.add(s);
                }
            }
        } else {
            String s = normalize(v);
            if (s != null) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * The first of a child's values of {@code field} that is one of {@code keys}: which parent a child
     * joined to when several of its keys could match. {@code null} when none is.
     */
    static @Nullable String firstIn(Hit<?> child, String field, Set<String> keys) {
        for (String k : values(child.fields(), field)) {
            if (keys.contains(k)) {
                return k;
            }
        }
        return null;
    }

    /**
     * A key as a string, the same for a keyword {@code "7"} and a number {@code 7} (or {@code 7.0}),
     * so that an {@code _id} matches a numeric reference.
     */
    static @Nullable String normalize(JsonValue v) {
        if (v == null) {
            return null;
        }
        return switch (v.getValueType()) {
            case STRING -> ((JsonString) v).getString();
            case NUMBER -> number(((JsonNumber) v).bigDecimalValue());
            case TRUE -> "true";
            case FALSE -> "false";
            default -> null;
        };
    }

    static String number(BigDecimal d) {
        BigDecimal stripped = d.stripTrailingZeros();
        return stripped.scale() <= 0 ? stripped.toBigInteger().toString() : stripped.toPlainString();
    }

    /**
     * Splits keys into batches of at most {@code limit}, in order. One batch when they fit.
     *
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    static List<List<String>> batches(Collection<String> keys, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("batch limit must be at least 1, got " + limit);
        }
        List<String> all = keys instanceof List<String> l ? l : new ArrayList<>(keys);
        List<List<String>> out = new ArrayList<>((all.size() + limit - 1) / limit);
        for (int from = 0; from < all.size(); from += limit) {
            out.add(all.subList(from, Math.min(from + limit, all.size())));
        }
        return out;
    }
}
