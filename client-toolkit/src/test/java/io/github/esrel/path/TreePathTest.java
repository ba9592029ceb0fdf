package io.github.esrel.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TreePathTest {

    private static TreePath p(String s) {
        return TreePath.of(s);
    }

    @Test
    void shouldParseRootAndNormalisedPaths() {
        assertThat(p("/")).isSameAs(TreePath.ROOT);
        assertThat(p("/").isRoot()).isTrue();
        assertThat(p("/").depth()).isZero();
        assertThat(p("/").segments()).isEmpty();
        assertThat(p("/").name()).isEmpty();

        TreePath readme = p("/clinton/projects/elasticsearch/README.txt");
        assertThat(readme.value()).isEqualTo("/clinton/projects/elasticsearch/README.txt");
        assertThat(readme.toString()).isEqualTo(readme.value());
        assertThat(readme.segments()).containsExactly("clinton", "projects", "elasticsearch", "README.txt");
        assertThat(readme.depth()).isEqualTo(4);
        assertThat(readme.name()).isEqualTo("README.txt");
        assertThat(readme.isRoot()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/a",
                "/a/b",
                "/a b/c d",
                "/.hidden",
                "/a/...",
                "/a/..b",
                "/a/b.",
                "/ünï/中文/😀",
                "/a\\b",
                "/a:b",
                "/*",
                "/a?b",
                "/%2F",
                "/ "
            })
    void shouldAcceptValidPaths(String s) {
        assertThat(TreePath.isValid(s)).isTrue();
        assertThat(p(s).value()).isEqualTo(s);
        assertThat(TreePath.normalize(s)).isEqualTo(p(s));
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "a",
                "a/b",
                "./a",
                "//",
                "/a/",
                "/a//b",
                "//a",
                "/./a",
                "/a/.",
                "/a/../b",
                "/..",
                "/a/\u0000",
                "/a\nb",
                "/tab\there",
                "/del\u007f",
                "/c1\u0085",
                "/lone\uD800",
                "/lone\uDC00x",
                "/\uDC00\uD800"
            })
    void shouldRejectInvalidPaths(String s) {
        assertThat(TreePath.isValid(s)).isFalse();
        assertThatThrownBy(() -> p(s))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("path");
    }

    @Test
    void shouldExplainWhatIsWrongAndTheFix() {
        assertThatThrownBy(() -> p("a/b")).hasMessage("path \"a/b\" must be absolute (start with '/')");
        assertThatThrownBy(() -> p("/a/"))
                .hasMessageContaining("must not end with '/'")
                .hasMessageContaining("TreePath.normalize");
        assertThatThrownBy(() -> p("/a//b")).hasMessageContaining("empty segment");
        assertThatThrownBy(() -> p("/a/../b")).hasMessageContaining("'..' segment");
        assertThatThrownBy(() -> p("/a\nb")).hasMessageContaining("U+000A").hasMessageContaining("\\u000A");
        assertThatThrownBy(() -> p("")).hasMessageContaining("the root is \"/\"");
        assertThatThrownBy(() -> p(null)).isInstanceOf(NullPointerException.class);
        assertThat(TreePath.isValid(null)).isFalse();
    }

    @Test
    void shouldAcceptPathsAtTheLimitsOfBothLockProviders() {
        LimitPaths.accepted()
                .forEach((what, path) -> assertThat(p(path).value()).as(what).isEqualTo(path));
        assertThat(p("/s".repeat(TreePath.MAX_DEPTH)).depth()).isEqualTo(TreePath.MAX_DEPTH);
        assertThat(TreePath.normalize("/a/../" + "b".repeat(TreePath.MAX_BYTES - 1))
                        .value())
                .hasSize(TreePath.MAX_BYTES); // the limits apply to the normalised path
    }

    @Test
    void shouldRefusePathsPastTheLimitsNamingTheLimitAndTheFix() {
        LimitPaths.refused()
                .forEach((what, path) -> assertThatThrownBy(() -> p(path))
                        .as(what)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageMatching("(?s).*(at most 1024 are allowed \\(TreePath.MAX_BYTES.*use a shorter path"
                                + "|more than 100 segments \\(TreePath.MAX_DEPTH.*use fewer levels).*"));
    }

    @Test
    void shouldNameTheLimitThatWasBroken() {
        assertThatThrownBy(() -> p("/" + "a".repeat(TreePath.MAX_BYTES)))
                .hasMessageContaining("1025 UTF-8 bytes, at most 1024 are allowed");
        assertThatThrownBy(() -> p("/" + "語".repeat(400))).hasMessageContaining("1201 UTF-8 bytes");
        assertThatThrownBy(() -> p("/s".repeat(TreePath.MAX_DEPTH + 1)))
                .hasMessageContaining("more than 100 segments (TreePath.MAX_DEPTH")
                .hasMessageContaining("use fewer levels");
        assertThatThrownBy(() -> TreePath.ofSegments(java.util.Collections.nCopies(101, "s")))
                .hasMessageContaining("more than 100 segments");
        assertThatThrownBy(() -> p("/a").resolve("b".repeat(TreePath.MAX_BYTES)))
                .hasMessageContaining("at most 1024");
        assertThatThrownBy(() -> p("/s".repeat(TreePath.MAX_DEPTH)).child("t"))
                .hasMessageContaining("more than 100 segments");
        assertThatThrownBy(() -> p("/" + "a".repeat(1000)).rebase(p("/"), p("/" + "b".repeat(100))))
                .hasMessageContaining("at most 1024");
        // A huge path is rejected on its length, without echoing all of it.
        assertThatThrownBy(() -> p("/" + "x".repeat(1_000_000))).message().hasSizeLessThan(400);
    }

    @Test
    void shouldNormaliseLenientForms() {
        assertThat(TreePath.normalize("/a//b/./c/../d/")).isEqualTo(p("/a/b/d"));
        assertThat(TreePath.normalize("//")).isEqualTo(TreePath.ROOT);
        assertThat(TreePath.normalize("/a/..")).isEqualTo(TreePath.ROOT);
        assertThat(TreePath.normalize("/./.")).isEqualTo(TreePath.ROOT);
        assertThat(TreePath.normalize("/a/b/../../c")).isEqualTo(p("/c"));
        assertThat(TreePath.normalize("///x///")).isEqualTo(p("/x"));
        assertThatThrownBy(() -> TreePath.normalize("/..")).hasMessageContaining("above the root");
        assertThatThrownBy(() -> TreePath.normalize("/a/../..")).hasMessageContaining("above the root");
        assertThatThrownBy(() -> TreePath.normalize("a/b")).hasMessageContaining("absolute");
        assertThatThrownBy(() -> TreePath.normalize("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TreePath.normalize("/a/\u0001")).hasMessageContaining("control");
    }

    @Test
    void shouldListAncestorsRootFirst() {
        assertThat(p("/a/b/c").ancestors()).containsExactly(p("/"), p("/a"), p("/a/b"));
        assertThat(p("/a/b/c").lineage()).containsExactly(p("/"), p("/a"), p("/a/b"), p("/a/b/c"));
        assertThat(p("/a").ancestors()).containsExactly(TreePath.ROOT);
        assertThat(TreePath.ROOT.ancestors()).isEmpty();
        assertThat(TreePath.ROOT.lineage()).containsExactly(TreePath.ROOT);
        // Ancestors are real paths with the right segments, not just strings.
        TreePath ab = p("/a/b/c").ancestors().get(2);
        assertThat(ab.segments()).containsExactly("a", "b");
        assertThat(ab.name()).isEqualTo("b");
        assertThat(ab.depth()).isEqualTo(2);
    }

    @Test
    void shouldGiveParents() {
        assertThat(p("/a/b/c").parent()).contains(p("/a/b"));
        assertThat(p("/a").parent()).contains(TreePath.ROOT);
        assertThat(TreePath.ROOT.parent()).isEmpty();
        assertThat(p("/a/b/c").parent().orElseThrow().segments()).containsExactly("a", "b");
    }

    @Test
    void shouldProduceWhatThePathHierarchyTokenizerProduces() {
        assertThat(p("/clinton/projects/elasticsearch").hierarchyTokens())
                .containsExactly("/clinton", "/clinton/projects", "/clinton/projects/elasticsearch");
        assertThat(p("/a").hierarchyTokens()).containsExactly("/a");
        assertThat(TreePath.ROOT.hierarchyTokens()).containsExactly("/");
    }

    @Test
    void shouldTestPrefixesSegmentBySegment() {
        TreePath ab = p("/a/b");
        assertThat(ab.startsWith(p("/a"))).isTrue();
        assertThat(ab.startsWith(ab)).isTrue();
        assertThat(ab.startsWith(TreePath.ROOT)).isTrue();
        assertThat(p("/a/bc").startsWith(ab)).isFalse();
        assertThat(p("/a/b/c").startsWith(ab)).isTrue();
        assertThat(p("/ab").startsWith(p("/a"))).isFalse();
        assertThat(p("/a").startsWith(ab)).isFalse();
        assertThat(TreePath.ROOT.startsWith(TreePath.ROOT)).isTrue();
        assertThat(TreePath.ROOT.startsWith(p("/a"))).isFalse();

        assertThat(p("/a").isAncestorOf(ab)).isTrue();
        assertThat(TreePath.ROOT.isAncestorOf(ab)).isTrue();
        assertThat(ab.isAncestorOf(ab)).isFalse();
        assertThat(p("/a/b").isAncestorOf(p("/a/bc"))).isFalse();
        assertThat(ab.isDescendantOf(p("/a"))).isTrue();
        assertThat(ab.isDescendantOf(ab)).isFalse();
        assertThat(TreePath.ROOT.isDescendantOf(TreePath.ROOT)).isFalse();

        assertThat(ab.onSameBranch(p("/a"))).isTrue();
        assertThat(p("/a").onSameBranch(ab)).isTrue();
        assertThat(ab.onSameBranch(ab)).isTrue();
        assertThat(ab.onSameBranch(p("/a/c"))).isFalse();
        assertThat(ab.onSameBranch(TreePath.ROOT)).isTrue();
    }

    @Test
    void shouldFindTheCommonAncestor() {
        assertThat(p("/a/b").commonAncestor(p("/a/c"))).isEqualTo(p("/a"));
        assertThat(p("/a/b/c").commonAncestor(p("/a/b"))).isEqualTo(p("/a/b"));
        assertThat(p("/a/b").commonAncestor(p("/a/b/c"))).isEqualTo(p("/a/b"));
        assertThat(p("/a").commonAncestor(p("/b"))).isEqualTo(TreePath.ROOT);
        assertThat(p("/a/b").commonAncestor(p("/a/b"))).isEqualTo(p("/a/b"));
        assertThat(p("/a/bc").commonAncestor(p("/a/bd"))).isEqualTo(p("/a"));
    }

    @Test
    void shouldBuildChildrenAndResolveRelativePaths() {
        assertThat(TreePath.ROOT.child("a")).isEqualTo(p("/a"));
        assertThat(p("/a").child("b c")).isEqualTo(p("/a/b c"));
        assertThatThrownBy(() -> p("/a").child("b/c")).hasMessageContaining("single path segment");
        assertThatThrownBy(() -> p("/a").child("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p("/a").child("..")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p("/a").child("x\u0000")).hasMessageContaining("control");

        assertThat(p("/a").resolve("b/c")).isEqualTo(p("/a/b/c"));
        assertThat(TreePath.ROOT.resolve("b/c")).isEqualTo(p("/b/c"));
        assertThat(p("/a").resolve("")).isEqualTo(p("/a"));
        assertThatThrownBy(() -> p("/a").resolve("/b")).hasMessageContaining("absolute");
        assertThatThrownBy(() -> p("/a").resolve("../b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> p("/a").resolve("b/")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRebaseForADirectoryRename() {
        TreePath from = p("/clinton");
        TreePath to = p("/zach/home");
        assertThat(p("/clinton/projects/README.txt").rebase(from, to)).isEqualTo(p("/zach/home/projects/README.txt"));
        assertThat(from.rebase(from, to)).isEqualTo(to);
        assertThat(p("/a/b").rebase(p("/a"), TreePath.ROOT)).isEqualTo(p("/b"));
        assertThat(p("/a/b").rebase(TreePath.ROOT, p("/x"))).isEqualTo(p("/x/a/b"));
        assertThatThrownBy(() -> p("/clintonx/a").rebase(from, to)).hasMessageContaining("not at or below /clinton");

        assertThat(p("/a/b/c").relativeTo(p("/a"))).isEqualTo("b/c");
        assertThat(p("/a/b/c").relativeTo(TreePath.ROOT)).isEqualTo("a/b/c");
        assertThat(p("/a").relativeTo(p("/a"))).isEmpty();
        assertThatThrownBy(() -> p("/a").relativeTo(p("/b"))).isInstanceOf(IllegalArgumentException.class);
        // resolve and relativeTo are inverse.
        assertThat(p("/a").resolve(p("/a/b/c").relativeTo(p("/a")))).isEqualTo(p("/a/b/c"));
    }

    @Test
    void shouldBuildFromSegments() {
        assertThat(TreePath.ofSegments("a", "b")).isEqualTo(p("/a/b"));
        assertThat(TreePath.ofSegments()).isSameAs(TreePath.ROOT);
        assertThat(TreePath.ofSegments(List.of("x"))).isEqualTo(p("/x"));
        assertThatThrownBy(() -> TreePath.ofSegments("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TreePath.ofSegments("a", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TreePath.ofSegments("..")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldSortDepthFirstBySegments() {
        List<TreePath> paths =
                new ArrayList<>(List.of(p("/a-b"), p("/a/b"), p("/"), p("/a"), p("/b"), p("/a/b/c"), p("/a/a")));
        Collections.shuffle(paths, new Random(7));
        Collections.sort(paths);
        assertThat(paths).containsExactly(p("/"), p("/a"), p("/a/a"), p("/a/b"), p("/a/b/c"), p("/a-b"), p("/b"));
    }

    @Test
    void shouldCompareByValue() {
        assertThat(p("/a/b")).isEqualTo(TreePath.normalize("/a//b/")).hasSameHashCodeAs(p("/a/b"));
        assertThat(p("/a/b")).isNotEqualTo(p("/a/B"));
        assertThat(p("/a").compareTo(p("/a"))).isZero();
    }

    /** Properties on random paths: the operations agree with each other. */
    @Test
    void shouldKeepItsInvariantsOnRandomPaths() {
        Random r = new Random(42);
        String[] names = {"a", "b", "ab", "b.c", "中", "😀", "x y", "..."};
        for (int i = 0; i < 2000; i++) {
            List<String> segs = new ArrayList<>();
            int depth = r.nextInt(6);
            for (int d = 0; d < depth; d++) {
                segs.add(names[r.nextInt(names.length)]);
            }
            TreePath path = TreePath.ofSegments(segs);
            assertThat(TreePath.of(path.value())).isEqualTo(path);
            assertThat(path.depth()).isEqualTo(depth);
            assertThat(path.lineage()).hasSize(depth + 1);
            assertThat(path.lineage().get(depth)).isEqualTo(path);
            assertThat(path.hierarchyTokens()).hasSize(Math.max(1, depth));
            for (TreePath a : path.ancestors()) {
                assertThat(a.isAncestorOf(path)).isTrue();
                assertThat(path.startsWith(a)).isTrue();
                assertThat(a.compareTo(path)).isNegative();
                if (!a.isRoot()) {
                    assertThat(path.hierarchyTokens()).contains(a.value());
                }
            }
            path.parent()
                    .ifPresent(parent -> assertThat(parent.child(path.name())).isEqualTo(path));

            List<String> other = new ArrayList<>();
            int otherDepth = r.nextInt(6);
            for (int d = 0; d < otherDepth; d++) {
                other.add(names[r.nextInt(names.length)]);
            }
            TreePath q = TreePath.ofSegments(other);
            TreePath common = path.commonAncestor(q);
            assertThat(path.startsWith(common)).isTrue();
            assertThat(q.startsWith(common)).isTrue();
            assertThat(path.onSameBranch(q)).isEqualTo(common.equals(path) || common.equals(q));
            assertThat(Integer.signum(path.compareTo(q))).isEqualTo(-Integer.signum(q.compareTo(path)));
            assertThat(path.rebase(common, q).startsWith(q)).isTrue();
            assertThat(path.rebase(common, q).rebase(q, common)).isEqualTo(path);
        }
    }
}
