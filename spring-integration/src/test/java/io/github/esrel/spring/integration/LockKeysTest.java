package io.github.esrel.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.path.TreePath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockKeysTest {

    private static final TreePath PREFIX = TreePath.of("/locks");

    private static final List<Object> KEYS = List.of(
            "order-1",
            "a/b",
            "a%2Fb",
            "a%b",
            "%",
            "%%",
            "%25",
            "",
            "/",
            "a/",
            "/a",
            ".",
            "..",
            "%2E",
            "tab\there",
            "nul\u0000",
            "c1\u0085",
            "é/ü",
            "lone\ud800high",
            "lone?high",
            "lone%3Fhigh",
            "end\ud83d",
            "end?",
            "\udc00",
            "pair\ud83d\ude00",
            "%uD800",
            "a b",
            42,
            "42x");

    @Test
    void distinctKeysGiveDistinctValidChildPaths() {
        Set<TreePath> paths = new HashSet<>();
        for (Object key : KEYS) {
            TreePath path = LockKeys.path(PREFIX, key);
            assertThat(TreePath.isValid(path.value())).as(path.value()).isTrue();
            assertThat(path.parent()).as(String.valueOf(key)).contains(PREFIX);
            paths.add(path);
        }
        assertThat(paths).hasSameSizeAs(KEYS);
    }

    @Test
    void noPathIsBelowAnother() {
        List<TreePath> paths = new ArrayList<>();
        KEYS.forEach(k -> paths.add(LockKeys.path(PREFIX, k)));
        for (TreePath a : paths) {
            for (TreePath b : paths) {
                assertThat(a.isAncestorOf(b)).as(a + " above " + b).isFalse();
            }
        }
    }

    @Test
    void keepsUnreservedCharactersAndEscapesTheRest() {
        assertThat(LockKeys.segment("order_1-A")).isEqualTo("order_1-A");
        assertThat(LockKeys.segment("a/b")).isEqualTo("a%2Fb");
        assertThat(LockKeys.segment(".")).isEqualTo("%2E");
        assertThat(LockKeys.segment("")).isEqualTo("%");
        assertThat(LockKeys.segment("é")).isEqualTo("%C3%A9");
        assertThat(LockKeys.segment("\ud83d\ude00")).isEqualTo("%F0%9F%98%80");
        assertThat(LockKeys.segment("x\ud800")).isEqualTo("x%uD800");
        assertThat(LockKeys.segment("x?")).isEqualTo("x%3F");
        assertThat(LockKeys.segment(7L)).isEqualTo("7");
    }

    @Test
    void rejectsANullKey() {
        assertThatThrownBy(() -> LockKeys.segment(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lockKey");
    }
}
