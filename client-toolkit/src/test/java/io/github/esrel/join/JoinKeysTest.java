package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.json.JsonData;
import jakarta.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Keys: one normal form for ids, keywords and numbers; batches that respect max_terms_count. */
class JoinKeysTest {

    @Test
    void shouldNormalizeNumbersSoThatAnIdMatchesANumericReference() {
        assertThat(Keys.normalize(Json.createValue(7))).isEqualTo("7");
        assertThat(Keys.normalize(Json.createValue(7L))).isEqualTo("7");
        assertThat(Keys.normalize(Json.createValue(7.0))).isEqualTo("7");
        assertThat(Keys.normalize(Json.createValue(1.5))).isEqualTo("1.5");
        assertThat(Keys.normalize(Json.createValue(12_345_678_901L))).isEqualTo("12345678901");
        assertThat(Keys.normalize(Json.createValue("7"))).isEqualTo("7");
        assertThat(Keys.normalize(Json.createValue("u-1"))).isEqualTo("u-1");
        assertThat(Keys.normalize(jakarta.json.JsonValue.TRUE)).isEqualTo("true");
        assertThat(Keys.normalize(jakarta.json.JsonValue.NULL)).isNull();
    }

    @Test
    void shouldReadTheIdOrTheFirstFieldValueOfAHit() {
        Hit<Void> hit = Hit.of(h -> h.index("posts")
                .id("p1")
                .fields(Map.of("user", JsonData.fromJson("[\"u7\", \"u8\"]"), "n", JsonData.fromJson("[42]"))));
        assertThat(Keys.of(hit, "_id")).isEqualTo("p1");
        assertThat(Keys.of(hit, "user")).isEqualTo("u7");
        assertThat(Keys.values(hit.fields(), "user")).containsExactly("u7", "u8");
        assertThat(Keys.of(hit, "n")).isEqualTo("42");
        assertThat(Keys.of(hit, "missing")).isNull();
    }

    @Test
    void shouldJoinAChildByItsFirstKeyThatBelongsToAMatchingParent() {
        Hit<Void> child =
                Hit.of(h -> h.index("posts").id("p1").fields(Map.of("user", JsonData.fromJson("[\"u7\", 8, \"u9\"]"))));
        assertThat(Keys.firstIn(child, "user", Set.of("u9", "8"))).isEqualTo("8");
        assertThat(Keys.firstIn(child, "user", Set.of("u1"))).isNull();
        assertThat(Keys.firstIn(child, "missing", Set.of("u7"))).isNull();
    }

    @Test
    void shouldKeepAllKeysInOneBatchWhenTheyFit() {
        List<String> keys = keys(65_536);
        List<List<String>> batches = Keys.batches(keys, Keys.DEFAULT_MAX_TERMS_COUNT);
        assertThat(batches).hasSize(1);
        assertThat(batches.get(0)).hasSize(65_536);
    }

    @Test
    void shouldSplitKeysIntoBatchesOfAtMostTheLimitInOrder() {
        List<String> keys = keys(50);
        List<List<String>> batches = Keys.batches(keys, 7);
        assertThat(batches).hasSize(8);
        assertThat(batches).allSatisfy(b -> assertThat(b.size()).isLessThanOrEqualTo(7));
        assertThat(batches.get(7)).containsExactly("k49");
        List<String> flattened = new ArrayList<>();
        batches.forEach(flattened::addAll);
        assertThat(flattened).isEqualTo(keys);
    }

    @Test
    void shouldSplitExactMultiplesWithoutAnEmptyBatch() {
        assertThat(Keys.batches(keys(14), 7)).hasSize(2);
        assertThat(Keys.batches(keys(0), 7)).isEmpty();
        assertThat(Keys.batches(keys(1), 1)).hasSize(1);
    }

    @Test
    void shouldRejectANonPositiveLimit() {
        assertThatThrownBy(() -> Keys.batches(keys(3), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1");
    }

    private static List<String> keys(int n) {
        return IntStream.range(0, n).mapToObj(i -> "k" + i).toList();
    }
}
