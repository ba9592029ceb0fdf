package io.github.esrel.path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PathNamesTest {

    /** Names that escape, nearly escape or look like escapes: each must keep a path of its own. */
    private static final List<String> NAMES = List.of(
            "report",
            "nightly-report",
            "nightly.report.v2",
            "order:42",
            "a/b",
            "a%2Fb",
            "a%b",
            "%",
            "%%",
            "%25",
            "",
            "/",
            "//",
            "a/",
            "/a",
            ".",
            "..",
            "...",
            ".a",
            "%2E",
            "%2E%2E",
            "tab\there",
            "line\nbreak",
            "nul\u0000",
            "del\u007f",
            "c1\u0085\u009f",
            "nbsp\u00a0",
            "lone\ud800high",
            "lone?high",
            "lone%3Fhigh",
            "lone\udc00low",
            "pair\ud83d\ude00",
            "end\ud83d",
            "\udc00",
            "é/ü",
            "%u0041",
            "%uD800",
            "A",
            " ",
            "a b",
            "42");

    private final PathNames names = PathNames.under(TreePath.of("/locks"));

    @Test
    void shouldGiveEveryNameAValidPathOfItsOwnOneLevelBelowThePrefix() {
        Set<TreePath> paths = new HashSet<>();
        for (String name : NAMES) {
            TreePath path = names.path(name);
            assertThat(TreePath.isValid(path.value())).as(path.value()).isTrue();
            assertThat(path.parent()).as(name).contains(TreePath.of("/locks"));
            paths.add(path);
        }
        assertThat(paths).hasSameSizeAs(NAMES);
    }

    @Test
    void shouldNeverPutOneNameBelowAnother() {
        List<TreePath> paths = new ArrayList<>();
        NAMES.forEach(n -> paths.add(names.path(n)));
        for (TreePath a : paths) {
            for (TreePath b : paths) {
                assertThat(a.isAncestorOf(b)).as(a + " above " + b).isFalse();
            }
        }
    }

    @Test
    void shouldRoundTrip() {
        for (String name : NAMES) {
            assertThat(names.name(names.path(name))).as(name).contains(name);
            assertThat(PathNames.decode(PathNames.segment(name))).as(name).isEqualTo(name);
        }
    }

    /** Random strings over an alphabet of the characters that matter: distinct names, distinct paths, round trips. */
    @Test
    void shouldBeInjectiveAndReversibleOnRandomNames() {
        char[] alphabet = {'a', 'B', '0', '%', '/', '.', 'u', 'E', '2', '\n', '\u0085', '\ud800', '\udc00', 'é', ' '};
        Random random = new Random(32);
        Set<String> seen = new HashSet<>();
        Set<TreePath> paths = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            StringBuilder sb = new StringBuilder();
            int length = random.nextInt(6);
            for (int j = 0; j < length; j++) {
                sb.append(alphabet[random.nextInt(alphabet.length)]);
            }
            String name = sb.toString();
            if (seen.add(name)) {
                TreePath path = names.path(name);
                assertThat(paths.add(path)).as("%s shares %s", name, path).isTrue();
                assertThat(path.depth()).isEqualTo(2);
                assertThat(names.name(path)).as(name).contains(name);
            }
        }
    }

    @Test
    void shouldKeepWhatASegmentCanHoldAndEscapeTheRest() {
        assertThat(PathNames.segment("nightly-report.v2 é")).isEqualTo("nightly-report.v2 é");
        assertThat(PathNames.segment("a/b")).isEqualTo("a%2Fb");
        assertThat(PathNames.segment("50%")).isEqualTo("50%25");
        assertThat(PathNames.segment(".")).isEqualTo("%2E");
        assertThat(PathNames.segment("..")).isEqualTo("%2E%2E");
        assertThat(PathNames.segment("")).isEqualTo("%");
        assertThat(PathNames.segment("\n")).isEqualTo("%0A");
        assertThat(PathNames.segment("\u009f")).isEqualTo("%9F");
        assertThat(PathNames.segment("x\ud800")).isEqualTo("x%uD800");
        assertThat(PathNames.segment("\ud83d\ude00")).isEqualTo("\ud83d\ude00");
    }

    /**
     * The paths ShedLock's locks used before this mapping was shared (the provider's own escaping, which this is) stay
     * the same; Spring Integration's keep theirs for keys of letters, digits, {@code _} and {@code -} (UUIDs, numbers,
     * {@code leader}), and move for keys with other characters (the registry escaped every other byte of UTF-8).
     */
    @Test
    void shouldKeepThePathsOfTodaysLocks() {
        PathNames shedlock = PathNames.under(TreePath.of("/shedlock"));
        assertThat(shedlock.path("nightly-report").value()).isEqualTo("/shedlock/nightly-report");
        assertThat(shedlock.path("com.acme.Job.run").value()).isEqualTo("/shedlock/com.acme.Job.run");
        assertThat(shedlock.path("a/b").value()).isEqualTo("/shedlock/a%2Fb");
        assertThat(shedlock.path("..").value()).isEqualTo("/shedlock/%2E%2E");
        assertThat(shedlock.path("x\ud800").value()).isEqualTo("/shedlock/x%uD800");

        PathNames registry = PathNames.under(TreePath.of("/spring-integration/locks"));
        assertThat(registry.path("leader").value()).isEqualTo("/spring-integration/locks/leader");
        assertThat(registry.path("order_1-A").value()).isEqualTo("/spring-integration/locks/order_1-A");
        assertThat(registry.path("3f2b1c9e-0d4a-4c57-9a7e-5b3f0c2d1e8f").value())
                .isEqualTo("/spring-integration/locks/3f2b1c9e-0d4a-4c57-9a7e-5b3f0c2d1e8f");
        assertThat(registry.path("a/b").value()).isEqualTo("/spring-integration/locks/a%2Fb");
        assertThat(registry.path("").value()).isEqualTo("/spring-integration/locks/%");
        assertThat(registry.path(".").value()).isEqualTo("/spring-integration/locks/%2E");
        // moved: was order%2E1 and %C3%A9
        assertThat(registry.path("order.1").value()).isEqualTo("/spring-integration/locks/order.1");
        assertThat(registry.path("é").value()).isEqualTo("/spring-integration/locks/é");
    }

    @Test
    void shouldGiveNoNameForOtherPaths() {
        assertThat(names.name(TreePath.of("/locks"))).isEmpty();
        assertThat(names.name(TreePath.of("/other/x"))).isEmpty();
        assertThat(names.name(TreePath.of("/locks/a/b"))).isEmpty();
        assertThat(names.name(TreePath.of("/locks/%41"))).isEmpty(); // A is never escaped
        assertThat(names.name(TreePath.of("/locks/%2e"))).isEmpty(); // lower-case hex is never written
        assertThat(names.name(TreePath.of("/locks/a%2E"))).isEmpty(); // only the names . and .. escape dots
        assertThat(names.name(TreePath.of("/locks/%G0"))).isEmpty();
        assertThat(names.name(TreePath.of("/locks/x%"))).isEmpty();
        assertThat(names.name(TreePath.of("/locks/%u12"))).isEmpty();
        assertThatThrownBy(() -> PathNames.decode("%41"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not the segment of any name");
    }

    @Test
    void shouldRefuseNamesTooLongForThePathLimitNamingIt() {
        String longest = "x".repeat(TreePath.MAX_BYTES - "/locks/".length());
        assertThat(names.path(longest).value()).hasSize(TreePath.MAX_BYTES);
        assertThatThrownBy(() -> names.path(longest + "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 1024 are allowed")
                .hasMessageContaining("use a shorter name");
        assertThatThrownBy(() -> names.path(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void shouldWorkUnderTheRoot() {
        PathNames root = PathNames.under(TreePath.ROOT);
        assertThat(root.path("a/b")).isEqualTo(TreePath.of("/a%2Fb"));
        assertThat(root.name(TreePath.of("/a%2Fb"))).contains("a/b");
        assertThat(root.name(TreePath.ROOT)).isEmpty();
        assertThat(root).hasToString("PathNames{under /}");
    }
}
