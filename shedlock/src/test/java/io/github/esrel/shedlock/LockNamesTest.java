package io.github.esrel.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.path.TreePath;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LockNamesTest {

    private static final List<String> NAMES = List.of(
            "report",
            "nightly-report",
            "a/b",
            "a%2Fb",
            "a%b",
            "%",
            "%%",
            "%25",
            "/",
            "//",
            "a/",
            "/a",
            ".",
            "..",
            "...",
            ".a",
            "%2E",
            "tab\there",
            "line\nbreak",
            "nul\u0000",
            "del\u007f",
            "c1\u0085\u009f",
            "nbsp\u00a0",
            "lone\ud800high",
            "lone\udc00low",
            "pair\ud83d\ude00",
            "end\ud83d",
            "\udc00",
            "é/ü",
            "%u0041",
            "A",
            " ",
            "a b");

    private final LockNames names = new LockNames(TreePath.of("/shedlock"));

    @Test
    void distinctNamesGiveDistinctValidChildPaths() {
        Set<TreePath> paths = new HashSet<>();
        for (String name : NAMES) {
            TreePath path = names.path(name);
            assertThat(TreePath.isValid(path.value())).as(path.value()).isTrue();
            assertThat(path.parent()).as(name).contains(TreePath.of("/shedlock"));
            assertThat(path.depth()).isEqualTo(2);
            paths.add(path);
        }
        assertThat(paths).hasSameSizeAs(NAMES);
    }

    @Test
    void noPathIsBelowAnother() {
        List<TreePath> paths = new ArrayList<>();
        NAMES.forEach(n -> paths.add(names.path(n)));
        for (TreePath a : paths) {
            for (TreePath b : paths) {
                assertThat(a.isAncestorOf(b)).as(a + " above " + b).isFalse();
            }
        }
    }

    @Test
    void roundTrips() {
        for (String name : NAMES) {
            assertThat(names.name(names.path(name))).isEqualTo(name);
        }
    }

    @Test
    void encodesOnlyWhatTreePathForbidsAndThePercent() {
        assertThat(LockNames.segment("nightly-report.v2 é")).isEqualTo("nightly-report.v2 é");
        assertThat(LockNames.segment("a/b")).isEqualTo("a%2Fb");
        assertThat(LockNames.segment("50%")).isEqualTo("50%25");
        assertThat(LockNames.segment("..")).isEqualTo("%2E%2E");
        assertThat(LockNames.segment("\n")).isEqualTo("%0A");
        assertThat(LockNames.segment("\u009f")).isEqualTo("%9F");
        assertThat(LockNames.segment("x\ud800")).isEqualTo("x%uD800");
        assertThat(LockNames.segment("\ud83d\ude00")).isEqualTo("\ud83d\ude00");
    }

    @Test
    void otherPathsHaveNoName() {
        assertThat(names.name(TreePath.of("/shedlock"))).isNull();
        assertThat(names.name(TreePath.of("/other/x"))).isNull();
        assertThat(names.name(TreePath.of("/shedlock/a/b"))).isNull();
    }

    @Test
    void rejectsEmptyAndTooLongNames() {
        assertThatThrownBy(() -> names.path("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> names.path("x".repeat(TreePath.MAX_BYTES)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRootPrefixWorks() {
        LockNames root = new LockNames(TreePath.ROOT);
        assertThat(root.path("a/b")).isEqualTo(TreePath.of("/a%2Fb"));
        assertThat(root.name(TreePath.of("/a%2Fb"))).isEqualTo("a/b");
    }
}
