package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactsTest {

    @TempDir
    Path repo;

    @Test
    void shouldFindTheNewestPluginZipForTheVersionAboveTheWorkingDirectory() throws IOException {
        Path target = Files.createDirectories(repo.resolve("es-plugin/target"));
        Path older = zip(target.resolve("esrel-plugin-0.1.0-es9.5.3.zip"), 1_000);
        Path newer = zip(target.resolve("esrel-plugin-0.2.0-es9.5.3.zip"), 2_000);
        zip(target.resolve("esrel-plugin-0.3.0-es9.3.2.zip"), 3_000);
        Path module = Files.createDirectories(repo.resolve("samples/src"));

        assertThat(Artifacts.pluginZip("9.5.3", Optional.empty(), module, offline(), "0.2.0"))
                .isEqualTo(newer);
        assertThat(older).exists();
    }

    @Test
    void shouldPreferTheConfiguredZipWhenItIsForTheVersion() throws IOException {
        Path configured = zip(repo.resolve("esrel-plugin-0.1.0-es9.5.3.zip"), 1_000);

        assertThat(Artifacts.pluginZip("9.5.3", Optional.of(configured), repo, offline(), "0.1.0"))
                .isEqualTo(configured);
    }

    @Test
    void shouldTakeThePluginArtifactOfTheEsrelVersionFromTheLocalMavenRepository() throws IOException {
        Path m2 = repo.resolve("m2");
        Path artifact = m2.resolve("io/github/esrel/esrel-plugin/0.4.0/esrel-plugin-0.4.0-es9.5.3.zip");
        Files.createDirectories(artifact.getParent());
        zip(artifact, 1_000);
        zip(
                Files.createDirectories(m2.resolve("io/github/esrel/esrel-plugin/0.3.0"))
                        .resolve("esrel-plugin-0.3.0-es9.5.3.zip"),
                2_000);
        Path outside = Files.createDirectories(repo.resolve("userproj"));

        assertThat(Artifacts.pluginZip("9.5.3", Optional.empty(), outside, offline(m2), "0.4.0"))
                .isEqualTo(artifact);
    }

    @Test
    void shouldFetchAMissingPluginArtifactWithMavenIntoTheSameRepository() {
        Path m2 = repo.resolve("m2");
        List<List<String>> commands = new ArrayList<>();
        MavenRepository fetching = new MavenRepository(m2, command -> {
            commands.add(command);
            Path file = m2.resolve("io/github/esrel/esrel-plugin/0.4.0/esrel-plugin-0.4.0-es9.3.2.zip");
            try {
                Files.createDirectories(file.getParent());
                Files.writeString(file, "zip");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Commands.Result(0, "");
        });

        Path zip = Artifacts.pluginZip("9.3.2", Optional.empty(), repo, fetching, "0.4.0");

        assertThat(zip).isEqualTo(m2.resolve("io/github/esrel/esrel-plugin/0.4.0/esrel-plugin-0.4.0-es9.3.2.zip"));
        assertThat(commands)
                .singleElement()
                .satisfies(c -> assertThat(c)
                        .contains(
                                "dependency:get",
                                "-Dmaven.repo.local=" + m2,
                                "-Dartifact=io.github.esrel:esrel-plugin:0.4.0:zip:es9.3.2"));
    }

    @Test
    void shouldSayWhereItLookedWhenThereIsNoZip() throws IOException {
        Path otherVersion = zip(repo.resolve("esrel-plugin-0.1.0-es9.3.2.zip"), 1_000);

        assertThatThrownBy(() -> Artifacts.pluginZip("9.5.3", Optional.of(otherVersion), repo, offline(), "0.1.0"))
                .isInstanceOf(EsClusterException.class)
                .hasMessageContaining(
                        "io.github.esrel:esrel-plugin:0.1.0:zip:es9.5.3 is not in the local Maven repository")
                .hasMessageContaining("esrel.plugin.zip (" + otherVersion + ", another version)")
                .hasMessageContaining("es-plugin/target/esrel-plugin-*-es9.5.3.zip")
                .hasMessageContaining("esrel-plugin-0.1.0-es9.5.3.zip")
                .hasMessageContaining("mvn -pl es-plugin -am install")
                .hasMessageContaining("plugin(false)");
    }

    @Test
    void shouldFindTheRepositoryTheBuildUses() throws IOException {
        Path home = repo.resolve("home");
        Map<String, String> none = Map.of();
        assertThat(MavenRepository.locate(none::get, none::get, home)).isEqualTo(home.resolve(".m2/repository"));

        Files.createDirectories(home.resolve(".m2"));
        Files.writeString(
                home.resolve(".m2/settings.xml"),
                "<settings><localRepository>${user.home}/m2-from-settings</localRepository></settings>");
        assertThat(MavenRepository.locate(none::get, none::get, home)).isEqualTo(home.resolve("m2-from-settings"));

        Map<String, String> opts = Map.of("MAVEN_OPTS", "-Xmx1g -Dmaven.repo.local=/work/m2-opts");
        assertThat(MavenRepository.locate(none::get, opts::get, home)).isEqualTo(Path.of("/work/m2-opts"));

        Map<String, String> commandLine = Map.of(
                "MAVEN_CMD_LINE_ARGS",
                " -B -Dmaven.repo.local=/work/m2-cli verify",
                "MAVEN_OPTS",
                "-Dmaven.repo.local=/x");
        assertThat(MavenRepository.locate(none::get, commandLine::get, home)).isEqualTo(Path.of("/work/m2-cli"));

        Map<String, String> property = Map.of("maven.repo.local", "/work/m2-prop");
        assertThat(MavenRepository.locate(property::get, commandLine::get, home))
                .isEqualTo(Path.of("/work/m2-prop"));
    }

    /** A repository under the test's directory where Maven fetches nothing. */
    private MavenRepository offline() {
        return offline(repo.resolve("m2"));
    }

    private static MavenRepository offline(Path m2) {
        return new MavenRepository(m2, command -> new Commands.Result(1, "[ERROR] Could not find artifact"));
    }

    private static Path zip(Path path, long modifiedMillis) throws IOException {
        Files.writeString(path, "zip");
        Files.setLastModifiedTime(path, FileTime.fromMillis(modifiedMillis));
        return path;
    }
}
