package io.github.esrel.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The guide is true: {@code tools/Docs.java check} on the repository (every Java, XML, properties and YAML block of
 * README.md and docs/ is the text of a tagged region of code that runs, every region is shown, every generated table is
 * what the newest record gives, every relative link and anchor resolves, no page carries run history). The tool is
 * compiled once and run as a program, as a developer runs it; the tests on small trees of their own show that it fails
 * when either side of a snippet changes alone.
 */
class DocsTest {

    @TempDir
    static Path classes;

    @BeforeAll
    static void compileTheTool() throws Exception {
        Path tool = Tree.fromBuild().root.resolve("tools/Docs.java");
        Result javac = run(List.of(javaTool("javac"), "-d", classes.toString(), tool.toString()));
        assertThat(javac.exit())
                .as("javac tools/Docs.java:%n%s", javac.output())
                .isZero();
    }

    @Test
    void shouldFindTheGuideInOrder() throws Exception {
        Result check = docs("check", Tree.fromBuild().root);
        assertThat(check.exit())
                .as("java tools/Docs.java check:%n%s", check.output())
                .isZero();
    }

    @Test
    void shouldFailWhenTheMarkdownOfASnippetChangesAlone(@TempDir Path root) throws Exception {
        writeTree(
                root,
                "        occ.update(\"designs\", id, Design.class, Design::vote);",
                "occ.update(\"designs\", id, Design.class, Design::vote);");
        assertThat(docs("check", root).exit()).isZero();

        Files.writeString(
                root.resolve("README.md"), readme("occ.update(\"designs\", id, Design.class, Design::unvote);"));
        Result check = docs("check", root);
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.output()).contains("README.md:4: the block differs from src/Votes.java#vote");
    }

    @Test
    void shouldFailWhenTheCodeOfASnippetChangesAlone(@TempDir Path root) throws Exception {
        writeTree(
                root,
                "        occ.update(\"designs\", id, Design.class, Design::unvote);",
                "occ.update(\"designs\", id, Design.class, Design::vote);");
        Result check = docs("check", root);
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.output()).contains("code: occ.update(\"designs\", id, Design.class, Design::unvote);");
    }

    @Test
    void shouldFailOnACodeBlockThatIsNoSnippetAndOnARegionShownNowhere(@TempDir Path root) throws Exception {
        writeTree(
                root,
                "        occ.update(\"designs\", id, Design.class, Design::vote);",
                "occ.update(\"designs\", id, Design.class, Design::vote);");
        Files.writeString(
                root.resolve("README.md"),
                "# Votes\n\n```java\nocc.update(\"designs\", id, Design.class, Design::vote);\n```\n");
        Result check = docs("check", root);
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.output())
                .contains("README.md:3: a java block without `<!-- snippet: PATH#NAME -->`")
                .contains("src/Votes.java: region vote is shown on no page");
    }

    @Test
    void shouldFailOnALinkOrAnchorThatLeadsNowhere(@TempDir Path root) throws Exception {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/locks.md"), "# Tree locks\n\n## Leases and fencing\n");
        Files.writeString(
                root.resolve("README.md"),
                "# esrel\n\n[ok](docs/locks.md#leases-and-fencing) [gone](docs/views.md)"
                        + " [no anchor](docs/locks.md#leases)\n");
        Result check = docs("check", root);
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.output())
                .contains("README.md:3: the link docs/views.md leads nowhere")
                .contains("README.md:3: the link docs/locks.md#leases names an anchor docs/locks.md does not have")
                .doesNotContain("leases-and-fencing");
    }

    @Test
    void shouldFailOnRunHistoryInAPage(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("README.md"), "# esrel\n\nMeasured in bench-20261205-234406 on a2c4e6f.\n");
        Result check = docs("check", root);
        assertThat(check.exit()).isEqualTo(1);
        assertThat(check.output()).contains("a record's name").contains("a commit hash");
    }

    /** A source with region {@code vote} holding {@code code}, and a README whose snippet holds {@code shown}. */
    private static void writeTree(Path root, String code, String shown) throws IOException {
        Files.createDirectories(root.resolve("src"));
        Files.writeString(
                root.resolve("src/Votes.java"),
                "class Votes {\n    void vote(String id) {\n        // tag::vote[]\n" + code
                        + "\n        // end::vote[]\n" + "    }\n}\n");
        Files.writeString(root.resolve("README.md"), readme(shown));
    }

    private static String readme(String shown) {
        return "# Votes\n\n<!-- snippet: src/Votes.java#vote -->\n```java\n" + shown + "\n```\n";
    }

    private static Result docs(String command, Path root) throws Exception {
        return run(List.of(javaTool("java"), "-cp", classes.toString(), "Docs", command, root.toString()));
    }

    private static String javaTool(String name) {
        return Path.of(System.getProperty("java.home"), "bin", name).toString();
    }

    record Result(int exit, String output) {}

    private static Result run(List<String> command) throws Exception {
        Path output = Files.createTempFile(classes, "output", ".txt");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("%s ends", command).isTrue();
        } finally {
            p.destroyForcibly();
        }
        return new Result(p.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    }
}
