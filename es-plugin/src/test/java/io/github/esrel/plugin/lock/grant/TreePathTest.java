package io.github.esrel.plugin.lock.grant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TreePathTest {

    @Test
    void shouldAcceptNormalisedAbsolutePaths() {
        for (String path : List.of(
                "/",
                "/a",
                "/a/b/c.txt",
                "/clinton/projects/elasticsearch/README.txt",
                "/ü/日本/😀",
                "/a b/ c ",
                "/.hidden",
                "/...",
                "/a.")) {
            assertThat(TreePath.problem("path", path)).as(path).isNull();
        }
        assertThat(TreePath.problem("path", "/" + "x".repeat(TreePath.MAX_BYTES - 1)))
                .isNull();
        assertThat(TreePath.problem("path", "/a".repeat(TreePath.MAX_DEPTH))).isNull();
    }

    @Test
    void shouldRefuseRelativeUnnormalisedAndOversizedPaths() {
        assertThat(TreePath.problem("path", null)).isEqualTo("path is required, e.g. \"/a/b/c.txt\"");
        assertThat(TreePath.problem("path", "")).contains("must not be empty");
        assertThat(TreePath.problem("path", "a/b")).contains("must be absolute");
        assertThat(TreePath.problem("path", "./a")).contains("must be absolute");
        assertThat(TreePath.problem("path", "/a/"))
                .contains("must not end with \"/\"")
                .contains("write [/a]");
        assertThat(TreePath.problem("path", "//")).contains("must not end with");
        assertThat(TreePath.problem("path", "/a//b")).contains("empty segment");
        assertThat(TreePath.problem("path", "/a/./b")).contains("[.] segment");
        assertThat(TreePath.problem("path", "/a/../b")).contains("[..] segment");
        assertThat(TreePath.problem("path", "/..")).contains("[..] segment");
        assertThat(TreePath.problem("path", "/a/.")).contains("[.] segment");
        assertThat(TreePath.problem("path", "/a\u0000b")).contains("control character U+0000");
        assertThat(TreePath.problem("path", "/a\nb")).contains("control character U+000A");
        assertThat(TreePath.problem("path", "/a\u0085")).contains("control character U+0085");
        assertThat(TreePath.problem("path", "/a\ud800")).contains("unpaired surrogate");
        assertThat(TreePath.problem("path", "/a\udc00b")).contains("unpaired surrogate");
        assertThat(TreePath.problem("path", "/" + "x".repeat(TreePath.MAX_BYTES)))
                .contains("too long: 1025 UTF-8 bytes");
        assertThat(TreePath.problem("path", "/é".repeat(400))).contains("too long");
        assertThat(TreePath.problem("path", "/a".repeat(TreePath.MAX_DEPTH + 1)))
                .contains("too deep");
    }

    @Test
    void shouldKeepMessagesPrintable() {
        assertThat(TreePath.problem("path", "/a\ud800b"))
                .doesNotContain("\ud800")
                .contains("/a\ufffdb");
        assertThat(TreePath.problem("path", "/" + "x".repeat(2000))).hasSizeLessThan(200);
    }

    @Test
    void shouldTellAncestorsBySegmentsNotByPrefix() {
        assertThat(TreePath.isProperAncestor("/", "/a")).isTrue();
        assertThat(TreePath.isProperAncestor("/", "/")).isFalse();
        assertThat(TreePath.isProperAncestor("/a", "/a/b")).isTrue();
        assertThat(TreePath.isProperAncestor("/a", "/a/b/c")).isTrue();
        assertThat(TreePath.isProperAncestor("/a", "/ab")).isFalse();
        assertThat(TreePath.isProperAncestor("/a", "/a")).isFalse();
        assertThat(TreePath.isProperAncestor("/a/b", "/a")).isFalse();
        assertThat(TreePath.isAtOrBelow("/a", "/a")).isTrue();
        assertThat(TreePath.isAtOrBelow("/a/b", "/a")).isTrue();
        assertThat(TreePath.isAtOrBelow("/ab", "/a")).isFalse();
        assertThat(TreePath.isAtOrBelow("/anything", "/")).isTrue();
    }

    @Test
    void shouldNameTheParentOfEveryPathButTheRoot() {
        assertThat(TreePath.parent("/a/b/c.txt")).isEqualTo("/a/b");
        assertThat(TreePath.parent("/a")).isEqualTo("/");
        assertThat(TreePath.parent("/")).isNull();
    }

    @Test
    void shouldValidateOwners() {
        assertThat(LockOwner.problem("worker-7")).isNull();
        assertThat(LockOwner.problem("host:1234/😀")).isNull();
        assertThat(LockOwner.problem(null)).contains("owner is required");
        assertThat(LockOwner.problem("")).contains("must not be empty");
        assertThat(LockOwner.problem("  \t")).contains("must not be empty or blank");
        assertThat(LockOwner.problem("x".repeat(LockOwner.MAX_BYTES))).isNull();
        assertThat(LockOwner.problem("x".repeat(LockOwner.MAX_BYTES + 1))).contains("too long");
        assertThat(LockOwner.problem("a\u0007")).contains("control character");
        assertThat(LockOwner.problem("a\udfff")).contains("unpaired surrogate");
    }

    @Test
    void shouldParseModesExactly() {
        assertThat(LockMode.parse("exclusive")).isEqualTo(LockMode.EXCLUSIVE);
        assertThat(LockMode.parse("shared")).isEqualTo(LockMode.SHARED);
        for (String bad : List.of("EXCLUSIVE", "Shared", "read", "", " shared")) {
            assertThatThrownBy(() -> LockMode.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("mode must be [exclusive] or [shared]");
        }
    }
}
