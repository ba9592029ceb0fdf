package io.github.esrel.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

class JsonTreesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode json(String s) {
        try {
            return (ObjectNode) JSON.readTree(s.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void shouldFindLiteralDottedKeysToo() {
        assertThat(JsonTrees.get(json("{'user.id': '1'}"), "user.id").asText()).isEqualTo("1");
        assertThat(JsonTrees.get(json("{'a': {'b.c': 2}}"), "a.b.c").asInt()).isEqualTo(2);
        assertThat(JsonTrees.get(json("{'a': 1}"), "a.b")).isNull();
    }

    @Test
    void shouldFindNothingInMissingRootsOrNonObjects() {
        assertThat(JsonTrees.get(null, "a")).isNull();
        assertThat(JsonTrees.get(TextNode.valueOf("a"), "a")).isNull();
        assertThat(JsonTrees.get(json("{'a': {'b': null}}"), "a.b").isNull())
                .as("a JSON null is a value")
                .isTrue();
    }

    @Test
    void shouldSetACopyCreatingIntermediateObjectsAndReplacingNulls() {
        ObjectNode root = json("{'keep': 1, 'user': null}");
        ObjectNode value = json("{'x': 1}");

        JsonTrees.set(root, "user.card.v", value);
        JsonTrees.set(root, "a.b", null);
        value.put("x", 2);

        assertThat(root).isEqualTo(json("{'keep': 1, 'user': {'card': {'v': {'x': 1}}}, 'a': {'b': null}}"));
    }

    @Test
    void shouldRefuseToSetBelowAValueThatIsNotAnObjectAndNameTheStep() {
        ObjectNode root = json("{'a': {'b': 'text'}}");

        assertThatThrownBy(() -> JsonTrees.set(root, "a.b.c", IntNode.valueOf(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cannot set [a.b.c]: [a.b] is string, not an object");
        assertThat(root).isEqualTo(json("{'a': {'b': 'text'}}"));
    }

    @Test
    void shouldRemoveTheLiteralKeyFirstAndKeepIntermediateObjects() {
        ObjectNode root = json("{'a.b': 1, 'a': {'b': 2}}");

        JsonTrees.remove(root, "a.b");
        assertThat(root).isEqualTo(json("{'a': {'b': 2}}"));
        JsonTrees.remove(root, "a.b");
        assertThat(root).isEqualTo(json("{'a': {}}"));
        JsonTrees.remove(root, "a.b.c");
        JsonTrees.remove(root, "x.y");
        assertThat(root).isEqualTo(json("{'a': {}}"));
    }

    @Test
    void shouldCompareNumbersByValueAndTreatNullAndMissingAlike() {
        assertThat(JsonTrees.same(json("{'n': 5}"), json("{'n': 5.0}"))).isTrue();
        assertThat(JsonTrees.same(LongNode.valueOf(7), IntNode.valueOf(7))).isTrue();
        assertThat(JsonTrees.same(null, JSON.nullNode())).isTrue();
        assertThat(JsonTrees.same(JSON.missingNode(), null)).isTrue();
        assertThat(JsonTrees.same(TextNode.valueOf(""), null)).isFalse();
        assertThat(JsonTrees.same(json("{'n': 5}"), json("{'n': '5'}"))).isFalse();
    }

    @Test
    void shouldReadIdsFromStringsAndNumbersOnly() {
        assertThat(JsonTrees.idText(TextNode.valueOf("u1"))).isEqualTo("u1");
        assertThat(JsonTrees.idText(IntNode.valueOf(7))).isEqualTo("7");
        assertThat(JsonTrees.idText(null)).isNull();
        assertThat(JsonTrees.idText(JSON.nullNode())).isNull();
        assertThat(JsonTrees.idText(JSON.getNodeFactory().booleanNode(true))).isNull();
        assertThat(JsonTrees.idText(json("{'id': 1}"))).isNull();
    }

    @Test
    void shouldReadLongsWithAFallback() {
        JsonNode stamp = json("{'seq_no': 12, 'term': 'x'}");
        assertThat(JsonTrees.longOr(stamp.get("seq_no"), -1)).isEqualTo(12);
        assertThat(JsonTrees.longOr(stamp.get("term"), -1)).isEqualTo(-1);
        assertThat(JsonTrees.longOr(stamp.get("missing"), -1)).isEqualTo(-1);
    }
}
