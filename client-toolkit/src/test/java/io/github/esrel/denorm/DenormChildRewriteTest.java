package io.github.esrel.denorm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.internal.JsonTrees;
import org.junit.jupiter.api.Test;

class DenormChildRewriteTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Relation AUTHOR = Relation.of(r -> r.name("post-author")
            .parentIndex("users")
            .childIndex("posts")
            .parentIdField("user.id")
            .copy("name", "user.name")
            .copy("address.city", "user.city"));

    private static ObjectNode json(String s) {
        try {
            return (ObjectNode) JSON.readTree(s.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** Equal JSON with numbers by value (the stamp is written as a long, parsed back as an int). */
    private static void assertSame(ObjectNode actual, ObjectNode expected) {
        assertThat(JsonTrees.same(actual, expected))
                .as("%s equals %s", actual, expected)
                .isTrue();
    }

    private static ChildRewrite.Parent parent(String source, long seqNo) {
        return new ChildRewrite.Parent("1", json(source), seqNo);
    }

    @Test
    void shouldSetTheCopiesAndTheStampAndKeepEverythingElse() {
        ObjectNode child =
                json("{'title': 'hello', 'edits': 3, 'user': {'id': '1', 'name': 'John', 'avatar': 'a.png'}}");
        ChildRewrite.Decision d = ChildRewrite.decide(
                AUTHOR, child, parent("{'name': 'Johnny', 'address': {'city': 'Oslo'}, 'password': 'x'}", 7), false);

        assertThat(d.kind()).isEqualTo(ChildRewrite.Kind.WRITE);
        assertSame(
                d.full(),
                json("{'title': 'hello', 'edits': 3, 'user': {'id': '1', 'name': 'Johnny',"
                        + " 'avatar': 'a.png', 'city': 'Oslo'}, 'esrel': {'post-author': 7}}"));
        assertSame(d.partial(), json("{'user': {'name': 'Johnny', 'city': 'Oslo'}, 'esrel': {'post-author': 7}}"));
        assertThat(child.path("user").path("name").asText())
                .as("the input is not modified")
                .isEqualTo("John");
    }

    @Test
    void shouldRemoveACopyWhoseParentValueIsMissingOrNull() {
        ObjectNode child = json("{'user': {'id': '1', 'name': 'John', 'city': 'Oslo'}}");
        ChildRewrite.Decision d = ChildRewrite.decide(AUTHOR, child, parent("{'name': null}", 3), false);
        assertSame(d.full(), json("{'user': {'id': '1'}, 'esrel': {'post-author': 3}}"));
        assertSame(d.partial(), json("{'user': {'name': null, 'city': null}, 'esrel': {'post-author': 3}}"));
    }

    @Test
    void shouldBeUpToDateWhenValuesMatchAndTheStampIsNotOlder() {
        ObjectNode child = json("{'user': {'id': 1, 'name': 'John', 'city': 'Oslo'}, 'esrel': {'post-author': 7}}");
        assertThat(ChildRewrite.decide(AUTHOR, child, parent("{'name': 'John', 'address': {'city': 'Oslo'}}", 7), false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.UP_TO_DATE);
        assertThat(ChildRewrite.decide(AUTHOR, child, parent("{'name': 'John', 'address': {'city': 'Oslo'}}", 5), false)
                        .kind())
                .as("a newer stamp with equal values")
                .isEqualTo(ChildRewrite.Kind.UP_TO_DATE);
        ChildRewrite.Decision stampOnly =
                ChildRewrite.decide(AUTHOR, child, parent("{'name': 'John', 'address': {'city': 'Oslo'}}", 9), false);
        assertThat(stampOnly.kind())
                .as("equal values, older stamp: the stamp moves on")
                .isEqualTo(ChildRewrite.Kind.WRITE);
        assertThat(stampOnly.full().path("esrel").path("post-author").asLong()).isEqualTo(9);
    }

    @Test
    void shouldRewriteDifferentValuesEvenUnderANewerStamp() {
        // Impossible while the parent is read after the child, unless the parent index was rebuilt:
        // the values decide, the parent read is the fresher truth.
        ObjectNode child = json("{'user': {'id': '1', 'name': 'Old'}, 'esrel': {'post-author': 100}}");
        assertThat(ChildRewrite.decide(AUTHOR, child, parent("{'name': 'New'}", 4), false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.WRITE);
    }

    @Test
    void shouldCompareNumbersByValueAndMissingLikeNull() {
        Relation r = Relation.of(b -> b.name("x")
                .parentIndex("p")
                .childIndex("c")
                .parentIdField("pid")
                .copy("score", "s")
                .copy("nick", "n"));
        ObjectNode child = json("{'pid': '1', 's': 5.0, 'esrel': {'x': 2}}");
        assertThat(ChildRewrite.decide(
                                r, child, new ChildRewrite.Parent("1", json("{'score': 5, 'nick': null}"), 2), false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.UP_TO_DATE);
    }

    @Test
    void shouldLeaveChildrenOfAnotherParentAlone() {
        assertThat(ChildRewrite.decide(
                                AUTHOR,
                                json("{'user': {'id': '2', 'name': 'Mary'}}"),
                                parent("{'name': 'J'}", 1),
                                false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.MOVED);
        assertThat(ChildRewrite.decide(AUTHOR, json("{'title': 'no user'}"), parent("{'name': 'J'}", 1), false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.MOVED);
        assertThat(ChildRewrite.decide(AUTHOR, null, parent("{'name': 'J'}", 1), false)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.MOVED);
    }

    @Test
    void shouldReportAChildWhoseCopyTargetCrossesAValue() {
        ChildRewrite.Decision d = ChildRewrite.decide(
                AUTHOR, json("{'user': {'id': '1', 'name': {'first': 'J'}}}"), parent("{'name': 'J'}", 1), false);
        assertThat(d.kind()).isEqualTo(ChildRewrite.Kind.WRITE);
        Relation deep = Relation.of(b -> b.name("d")
                .parentIndex("p")
                .childIndex("c")
                .parentIdField("pid")
                .copy("name", "card.name"));
        ChildRewrite.Decision bad =
                ChildRewrite.decide(deep, json("{'pid': '1', 'card': 'legacy'}"), parent("{'name': 'J'}", 1), false);
        assertThat(bad.kind()).isEqualTo(ChildRewrite.Kind.INVALID);
        assertThat(bad.error()).contains("card.name").contains("[card] is string");
    }

    @Test
    void shouldJudgeByValuesAloneWhenIgnoringStamps() {
        ObjectNode child = json("{'user': {'id': '1', 'name': 'John'}, 'esrel': {'post-author': 900}}");
        ChildRewrite.Decision d = ChildRewrite.decide(AUTHOR, child, parent("{'name': 'John'}", 3), true);
        assertThat(d.kind()).as("an old index's stamp is replaced").isEqualTo(ChildRewrite.Kind.WRITE);
        assertThat(d.full().path("esrel").path("post-author").asLong()).isEqualTo(3);
        ObjectNode restamped = d.full();
        assertThat(ChildRewrite.decide(AUTHOR, restamped, parent("{'name': 'John'}", 3), true)
                        .kind())
                .isEqualTo(ChildRewrite.Kind.UP_TO_DATE);
    }
}
