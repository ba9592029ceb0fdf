package io.github.esrel.occ;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

/**
 * What a typed write stores, given the stored source, what the class gives back of it and what the function
 * returned: the function's changes, and everything the class does not map as stored.
 */
class SourceMergeTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static ObjectNode json(String text) {
        try {
            return (ObjectNode) JSON.readTree(text.replace('\'', '"'));
        } catch (Exception e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    private static ObjectNode merge(String stored, String seen, String next) {
        return SourceMerge.merge(json(stored), json(seen), json(next), "[i][1]");
    }

    @Test
    void shouldKeepEveryTopLevelFieldTheClassDoesNotMap() {
        String stored = "{'_class':'x.Design','name':'es','votes':1,'note':'other service','owner':{'team':'s'},"
                + "'tags':['a','b'],'archived':false,'rank':0}";
        assertThat(merge(stored, "{'name':'es','votes':1}", "{'name':'es','votes':2}"))
                .isEqualTo(json("{'_class':'x.Design','name':'es','votes':2,'note':'other service',"
                        + "'owner':{'team':'s'},'tags':['a','b'],'archived':false,'rank':0}"));
    }

    @Test
    void shouldKeepUnmappedFieldsOfNestedObjectsWhoseMappedFieldsChange() {
        assertThat(merge(
                        "{'stats':{'views':10,'region':'eu','by':{'day':1,'src':'x'}}}",
                        "{'stats':{'views':10,'by':{'day':1}}}",
                        "{'stats':{'views':11,'by':{'day':2}}}"))
                .isEqualTo(json("{'stats':{'views':11,'region':'eu','by':{'day':2,'src':'x'}}}"));
    }

    @Test
    void shouldKeepWhatTheFunctionLeftAloneExactlyAsStored() {
        // The class writes the date in another format and the long as a double: unchanged, they stay as stored.
        assertThat(merge(
                        "{'at':'2026-01-02','n':5,'v':1}",
                        "{'at':1767312000000,'n':5.0,'v':1}",
                        "{'at':1767312000000,'n':5.0,'v':2}"))
                .isEqualTo(json("{'at':'2026-01-02','n':5,'v':2}"));
    }

    @Test
    void shouldRemoveAFieldTheClassMapsAndTheFunctionCleared() {
        assertThat(merge("{'a':1,'b':2,'x':3}", "{'a':1,'b':2}", "{'a':1}")).isEqualTo(json("{'a':1,'x':3}"));
        assertThat(merge("{'a':1,'x':3}", "{'a':1}", "{'a':null}")).isEqualTo(json("{'a':null,'x':3}"));
    }

    @Test
    void shouldWriteNewFieldsOfTheClass() {
        assertThat(merge("{'a':1,'x':3}", "{'a':1,'b':null,'d':0}", "{'a':2,'b':null,'c':'new','d':5}"))
                .as("a null or default the class writes for a field the document lacks is not a change")
                .isEqualTo(json("{'a':2,'x':3,'c':'new','d':5}"));
    }

    @Test
    void shouldReplaceAnObjectWithWhatTheFunctionMadeOfIt() {
        assertThat(merge("{'o':{'a':1,'x':2}}", "{'o':{'a':1}}", "{'o':'flat'}"))
                .isEqualTo(json("{'o':'flat'}"));
        assertThat(merge("{'o':{'a':1,'x':2}}", "{'o':{'a':1}}", "{'o':null}")).isEqualTo(json("{'o':null}"));
    }

    @Test
    void shouldTakeTheFunctionsValueWhenTheClassMapsTheWholeSource() {
        ObjectNode next = json("{'a':2}");
        assertThat(SourceMerge.merge(json("{'a':1}"), json("{'a':1}"), next, "[i][1]"))
                .isSameAs(next);
    }

    @Test
    void shouldTakeArraysTheClassMapsWholeFromTheFunction() {
        assertThat(merge("{'tags':['a','b'],'x':1}", "{'tags':['a','b']}", "{'tags':['b','c','d']}"))
                .isEqualTo(json("{'tags':['b','c','d'],'x':1}"));
    }

    private static final String COMMENTS = "{'comments':[{'text':'a','by':'ann'},{'text':'b','by':'bob'}]}";
    private static final String SEEN = "{'comments':[{'text':'a'},{'text':'b'}]}";

    @Test
    void shouldKeepTheFieldsOfArrayElementsWhenTheFunctionAppends() {
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'a'},{'text':'b'},{'text':'c'}]}"))
                .isEqualTo(json("{'comments':[{'text':'a','by':'ann'},{'text':'b','by':'bob'},{'text':'c'}]}"));
    }

    @Test
    void shouldKeepTheFieldsOfArrayElementsWhenTheFunctionRemovesOrReorders() {
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'b'}]}"))
                .isEqualTo(json("{'comments':[{'text':'b','by':'bob'}]}"));
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'b'},{'text':'a'}]}"))
                .isEqualTo(json("{'comments':[{'text':'b','by':'bob'},{'text':'a','by':'ann'}]}"));
    }

    @Test
    void shouldKeepTheFieldsOfArrayElementsEditedInPlace() {
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'a'},{'text':'B!'}]}"))
                .isEqualTo(json("{'comments':[{'text':'a','by':'ann'},{'text':'B!','by':'bob'}]}"));
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'B!'},{'text':'a'}]}"))
                .as("b edited and moved before a")
                .isEqualTo(json("{'comments':[{'text':'B!','by':'bob'},{'text':'a','by':'ann'}]}"));
        assertThat(merge(COMMENTS, SEEN, "{'comments':[{'text':'a'},{'text':'B!'},{'text':'new'}]}"))
                .as("b edited in place, a new one appended")
                .isEqualTo(json("{'comments':[{'text':'a','by':'ann'},{'text':'B!','by':'bob'},{'text':'new'}]}"));
    }

    @Test
    void shouldRefuseAnEditAndAnAppendThatMovedElements() {
        assertThatThrownBy(() -> merge(COMMENTS, SEEN, "{'comments':[{'text':'B!'},{'text':'a'},{'text':'new'}]}"))
                .isInstanceOf(UnmappedFieldsException.class);
    }

    @Test
    void shouldRefuseWhenChangedElementsCannotBeMatchedToTheStoredOnes() {
        String stored = "{'comments':[{'text':'a','by':'ann'},{'text':'b','by':'bob'},{'text':'c','by':'cy'}]}";
        String seen = "{'comments':[{'text':'a'},{'text':'b'},{'text':'c'}]}";
        // b and c gone, one changed element: which of the two was edited?
        assertThatThrownBy(() -> merge(stored, seen, "{'comments':[{'text':'a'},{'text':'x'}]}"))
                .isInstanceOf(UnmappedFieldsException.class)
                .hasMessageContaining("[i][1]")
                .hasMessageContaining("[comments]")
                .hasMessageContaining("nothing was written")
                .satisfies(
                        e -> assertThat(((UnmappedFieldsException) e).field()).isEqualTo("comments"));
    }

    @Test
    void shouldRefuseWhenTheClassDropsElements() {
        assertThatThrownBy(() -> merge(
                        "{'o':{'list':[{'t':1,'x':1},{'t':2,'x':2}]}}",
                        "{'o':{'list':[{'t':1}]}}",
                        "{'o':{'list':[]}}"))
                .isInstanceOf(UnmappedFieldsException.class)
                .hasMessageContaining("[o.list]");
    }

    @Test
    void shouldNameNestedArraysInTheRefusal() {
        String stored = "{'posts':[{'c':[{'t':1,'x':1},{'t':2,'x':2}]}]}";
        String seen = "{'posts':[{'c':[{'t':1},{'t':2}]}]}";
        assertThatThrownBy(() -> merge(stored, seen, "{'posts':[{'c':[{'t':9}]}]}"))
                .isInstanceOf(UnmappedFieldsException.class)
                .satisfies(
                        e -> assertThat(((UnmappedFieldsException) e).field()).isEqualTo("posts[0].c"));
    }
}
