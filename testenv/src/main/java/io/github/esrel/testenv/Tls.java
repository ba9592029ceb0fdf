package io.github.esrel.testenv;

import co.elastic.clients.transport.TransportUtils;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The certificate authority and node certificate of secured test clusters: made once per work
 * directory ({@code <work>/tls/}) with the distribution's own {@code elasticsearch-certutil}, in
 * PEM, for {@code 127.0.0.1} and {@code localhost}, and shared by every node (they all listen on
 * loopback).
 */
final class Tls {

    static final String CA_CERT = "ca/ca.crt";
    static final String NODE_CERT = "node/node.crt";
    static final String NODE_KEY = "node/node.key";

    private static final Logger LOG = LoggerFactory.getLogger(Tls.class);
    private static final String COMPLETE_MARKER = ".esrel-complete";

    private Tls() {}

    /**
     * The directory holding {@link #CA_CERT}, {@link #NODE_CERT} and {@link #NODE_KEY}, made now if
     * missing (under a file lock: several JVMs may share the work directory).
     */
    static Path ensure(Path workDir, Path esHome, Path jdk) {
        Path dir = workDir.resolve("tls");
        try {
            Files.createDirectories(dir);
            try (FileChannel lockFile = FileChannel.open(
                    workDir.resolve("tls.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                FileLock lock = lockFile.lock(); // released when the channel closes
                if (lock.isValid() && !Files.exists(dir.resolve(COMPLETE_MARKER))) {
                    long started = System.nanoTime();
                    FileTrees.delete(dir);
                    Files.createDirectories(dir);
                    certutil(
                            esHome,
                            jdk,
                            dir,
                            "ca",
                            "--pem",
                            "--out",
                            dir.resolve("ca.zip").toString());
                    DistributionCache.unzip(dir.resolve("ca.zip"), dir);
                    certutil(
                            esHome,
                            jdk,
                            dir,
                            "cert",
                            "--pem",
                            "--ca-cert",
                            dir.resolve(CA_CERT).toString(),
                            "--ca-key",
                            dir.resolve("ca/ca.key").toString(),
                            "--ip",
                            "127.0.0.1",
                            "--dns",
                            "localhost",
                            "--name",
                            "node",
                            "--out",
                            dir.resolve("node.zip").toString());
                    DistributionCache.unzip(dir.resolve("node.zip"), dir);
                    Files.createFile(dir.resolve(COMPLETE_MARKER));
                    LOG.info(
                            "Made a certificate authority and node certificate in {} in {} ms",
                            dir,
                            (System.nanoTime() - started) / 1_000_000);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new EsClusterException("cannot make TLS certificates in " + dir + ": " + e, e);
        }
    }

    /** Copies the node's certificate, key and the CA into {@code <configDir>/certs/}. */
    static void install(Path tlsDir, Path configDir) {
        try {
            for (String file : List.of(CA_CERT, NODE_CERT, NODE_KEY)) {
                Path target = configDir.resolve("certs").resolve(file);
                Files.createDirectories(target.getParent());
                Files.copy(tlsDir.resolve(file), target);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot install certificates into " + configDir, e);
        }
    }

    /** A context that trusts the certificates the CA in {@code caPem} signed. */
    static SSLContext trusting(Path caPem) {
        try {
            return TransportUtils.sslContextFromHttpCaCrt(caPem.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CA certificate " + caPem, e);
        }
    }

    private static void certutil(Path esHome, Path jdk, Path dir, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(esHome.resolve("bin/elasticsearch-certutil").toString());
        command.addAll(List.of(args));
        command.add("--silent");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("certutil.log").toFile());
        builder.environment().put("ES_JAVA_HOME", jdk.toString());
        builder.environment().remove("JAVA_TOOL_OPTIONS");
        Process process = builder.start();
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException("elasticsearch-certutil " + args[0] + " did not finish within 2 minutes");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running elasticsearch-certutil", e);
        }
        if (process.exitValue() != 0) {
            throw new IOException("elasticsearch-certutil "
                    + args[0]
                    + " exited with "
                    + process.exitValue()
                    + ": "
                    + Files.readString(dir.resolve("certutil.log")));
        }
    }
}
