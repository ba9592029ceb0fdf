package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DistributionCacheTest {

    @TempDir
    Path tmp;

    @Test
    void shouldKeepTheUnixModesOfZipEntries() throws IOException {
        Path zip = tmp.resolve("dist.zip");
        try (ZipArchiveOutputStream out = new ZipArchiveOutputStream(zip)) {
            entry(out, "es/bin/elasticsearch", 0755);
            entry(out, "es/config/users", 0660);
        }

        DistributionCache.unzip(zip, tmp.resolve("out"));

        assertThat(PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(tmp.resolve("out/es/bin/elasticsearch"))))
                .isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("out/es/config/users"))))
                .isEqualTo("rw-rw----");
    }

    @Test
    void shouldRefuseEntriesOutsideTheTarget() throws IOException {
        Path zip = tmp.resolve("evil.zip");
        try (ZipArchiveOutputStream out = new ZipArchiveOutputStream(zip)) {
            entry(out, "../escaped", 0644);
        }

        assertThatThrownBy(() -> DistributionCache.unzip(zip, tmp.resolve("out")))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("outside its root");
        assertThat(tmp.resolve("escaped")).doesNotExist();
    }

    @Test
    void shouldConvertModesToPermissions() {
        assertThat(PosixFilePermissions.toString(DistributionCache.permissions(0754)))
                .isEqualTo("rwxr-xr--");
        assertThat(PosixFilePermissions.toString(DistributionCache.permissions(0)))
                .isEqualTo("---------");
    }

    private static void entry(ZipArchiveOutputStream out, String name, int mode) throws IOException {
        ZipArchiveEntry entry = new ZipArchiveEntry(name);
        entry.setUnixMode(mode);
        out.putArchiveEntry(entry);
        out.write(name.getBytes(StandardCharsets.UTF_8));
        out.closeArchiveEntry();
    }
}
