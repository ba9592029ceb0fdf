package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
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

        assertThat(Artifacts.pluginZip("9.5.3", Optional.empty(), module)).isEqualTo(newer);
        assertThat(older).exists();
    }

    @Test
    void shouldPreferTheConfiguredZipWhenItIsForTheVersion() throws IOException {
        Path configured = zip(repo.resolve("esrel-plugin-0.1.0-es9.5.3.zip"), 1_000);

        assertThat(Artifacts.pluginZip("9.5.3", Optional.of(configured), repo)).isEqualTo(configured);
    }

    @Test
    void shouldSayWhereItLookedWhenThereIsNoZip() throws IOException {
        Path otherVersion = zip(repo.resolve("esrel-plugin-0.1.0-es9.3.2.zip"), 1_000);

        assertThatThrownBy(() -> Artifacts.pluginZip("9.5.3", Optional.of(otherVersion), repo))
                .isInstanceOf(EsClusterException.class)
                .hasMessageContaining("esrel.plugin.zip is " + otherVersion + " (another version)")
                .hasMessageContaining("es-plugin/target/esrel-plugin-*-es9.5.3.zip")
                .hasMessageContaining("plugin(false)");
    }

    private static Path zip(Path path, long modifiedMillis) throws IOException {
        Files.writeString(path, "zip");
        Files.setLastModifiedTime(path, FileTime.fromMillis(modifiedMillis));
        return path;
    }
}
