package io.github.esrel.testenv;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Unpacked distributions, one directory per version and plugin build under {@code <work>/dist},
 * shared by all clusters of all JVMs using the same work directory. A directory is used only once
 * its marker file exists (written last); a file lock keeps two JVMs from unpacking the same one.
 * Nodes only read it: everything they write lives in their own directories.
 */
final class DistributionCache {

    private static final Logger LOG = LoggerFactory.getLogger(DistributionCache.class);
    private static final String COMPLETE_MARKER = ".esrel-complete";

    private DistributionCache() {}

    /**
     * Returns the Elasticsearch home for {@code distributionZip} with {@code pluginZip} installed (if
     * present), unpacking and installing on first use.
     */
    @SuppressWarnings("try") // the file lock is held for the whole block, never referenced
    static synchronized Path install(
            Path workDir, String version, Path distributionZip, Optional<Path> pluginZip, Path jdk) {
        String key = "elasticsearch-" + version
                + pluginZip.map(p -> "-esrel-" + sha256(p)).orElse("");
        Path dir = workDir.resolve("dist").resolve(key);
        Path home = dir.resolve("elasticsearch-" + version);
        try {
            Files.createDirectories(dir.getParent());
            // The JVM-wide lock (synchronized) and the file lock together: FileChannel.lock would throw
            // for a second thread of the same JVM instead of waiting.
            try (FileChannel lockChannel = FileChannel.open(
                            dir.resolveSibling(key + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock lock = lockChannel.lock()) {
                if (Files.exists(dir.resolve(COMPLETE_MARKER))) {
                    return home;
                }
                long started = System.nanoTime();
                FileTrees.delete(dir); // left over from an interrupted unpack
                unzip(distributionZip, dir);
                if (!Files.isRegularFile(home.resolve("bin/elasticsearch"))) {
                    throw new EsClusterException(distributionZip
                            + " is not an Elasticsearch "
                            + version
                            + " distribution: "
                            + home.resolve("bin/elasticsearch")
                            + " is missing after unpacking it");
                }
                if (pluginZip.isPresent()) {
                    installPlugin(home, pluginZip.get(), jdk);
                }
                makeReadableByAll(dir);
                Files.createFile(dir.resolve(COMPLETE_MARKER));
                LOG.info("Prepared {} in {} ms", dir, (System.nanoTime() - started) / 1_000_000);
                return home;
            }
        } catch (IOException e) {
            throw new EsClusterException("cannot prepare Elasticsearch in " + dir + ": " + e, e);
        }
    }

    private static void installPlugin(Path home, Path pluginZip, Path jdk) {
        List<String> command = List.of(
                home.resolve("bin/elasticsearch-plugin").toString(),
                "install",
                "--batch",
                pluginZip.toAbsolutePath().toUri().toString());
        Commands.Result result = Commands.run(
                command,
                Map.of(
                        "ES_JAVA_HOME",
                        jdk.toString(),
                        "ES_PATH_CONF",
                        home.resolve("config").toString()),
                home,
                Duration.ofMinutes(3));
        if (!result.ok()) {
            throw new EsClusterException("installing the esrel plugin "
                    + pluginZip
                    + " failed (exit "
                    + result.exitCode()
                    + "):\n"
                    + LogTail.lastLines(result.output(), 40)
                    + "\nA plugin installs only on the exact Elasticsearch version it was built for.");
        }
    }

    /** Unpacks keeping each entry's Unix mode: bin/ scripts must stay executable. */
    static void unzip(Path zip, Path target) throws IOException {
        Files.createDirectories(target);
        Path root = target.toAbsolutePath().normalize();
        try (ZipFile zipFile = ZipFile.builder().setPath(zip).get()) {
            Enumeration<ZipArchiveEntry> entries = zipFile.getEntries();
            while (entries.hasMoreElements()) {
                ZipArchiveEntry entry = entries.nextElement();
                Path path = root.resolve(entry.getName()).normalize();
                if (!path.startsWith(root)) {
                    throw new IOException(zip + " has an entry outside its root: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(path);
                    continue;
                }
                Files.createDirectories(path.getParent());
                try (InputStream in = zipFile.getInputStream(entry)) {
                    Files.copy(in, path);
                }
                int mode = entry.getUnixMode() & 0777;
                if (mode != 0) {
                    Files.setPosixFilePermissions(path, permissions(mode));
                }
            }
        }
    }

    /**
     * The distribution ships its config files as 660; a node running as another user copies them from
     * here, and reads everything else in place.
     */
    private static void makeReadableByAll(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
                perms.add(PosixFilePermission.OWNER_READ);
                perms.add(PosixFilePermission.GROUP_READ);
                perms.add(PosixFilePermission.OTHERS_READ);
                if (Files.isDirectory(path)) {
                    perms.add(PosixFilePermission.GROUP_EXECUTE);
                    perms.add(PosixFilePermission.OTHERS_EXECUTE);
                }
                Files.setPosixFilePermissions(path, perms);
            }
        }
    }

    static Set<PosixFilePermission> permissions(int mode) {
        StringBuilder rwx = new StringBuilder();
        String letters = "rwxrwxrwx";
        for (int bit = 8; bit >= 0; bit--) {
            rwx.append((mode & (1 << bit)) != 0 ? letters.charAt(8 - bit) : '-');
        }
        return PosixFilePermissions.fromString(rwx.toString());
    }

    static String sha256(Path file) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            return HexFormat.of().formatHex(digest.digest()).substring(0, 12);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
