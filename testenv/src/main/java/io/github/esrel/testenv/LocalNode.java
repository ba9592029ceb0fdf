package io.github.esrel.testenv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One Elasticsearch process of a local cluster, with its own directory: {@code config/} (a copy of
 * the distribution's, used through {@code ES_PATH_CONF}), {@code data/}, {@code logs/}, {@code
 * tmp/}, the pid file and the launcher's output. Not thread-safe: {@link LocalBackend} serializes
 * access, except for {@link #kill()} from the shutdown hook, which only signals processes.
 */
final class LocalNode {

    enum Status {
        STOPPED,
        STARTING,
        RUNNING,
        FAILED
    }

    private static final Duration KILL_WAIT = Duration.ofSeconds(10);
    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(10);

    private final int index;
    private final String clusterName;
    private final Path dir;
    private NodePorts ports;

    /** {@code bin/elasticsearch -d}: exits once the node is up, or with an error if it is not. */
    private volatile @Nullable Process launcher;

    /** The daemonized node process, known once the launcher has exited successfully. */
    private volatile @Nullable ProcessHandle server;

    private @Nullable String failure;

    private volatile boolean https;

    /** Whether this JVM stopped the server with SIGSTOP and has not continued it since. */
    private volatile boolean frozen;

    LocalNode(Path clusterDir, String clusterName, int index, NodePorts ports) {
        this.dir = clusterDir.resolve(ElasticsearchYml.nodeName(index));
        this.clusterName = clusterName;
        this.index = index;
        this.ports = ports;
    }

    String name() {
        return ElasticsearchYml.nodeName(index);
    }

    NodePorts ports() {
        return ports;
    }

    void ports(NodePorts newPorts) {
        this.ports = newPorts;
    }

    URI httpUri() {
        return URI.create((https ? "https" : "http") + "://127.0.0.1:" + ports.http());
    }

    /** Serves HTTPS from now on (a secured cluster's node, before its first launch). */
    void https(boolean https) {
        this.https = https;
    }

    /** The node's config directory ({@code ES_PATH_CONF}). */
    Path configDirectory() {
        return configDir();
    }

    /** Elasticsearch's main log file. */
    Path log() {
        return dir.resolve("logs").resolve(clusterName + ".log");
    }

    private Path configDir() {
        return dir.resolve("config");
    }

    /** Creates the node's directories with a copy of the distribution's config directory. */
    void prepare(Path esHome) {
        try {
            for (String sub : List.of("data", "logs", "tmp")) {
                Files.createDirectories(dir.resolve(sub));
            }
            Path source = esHome.resolve("config");
            try (Stream<Path> files = Files.walk(source)) {
                for (Path file : (Iterable<Path>) files::iterator) {
                    Files.copy(file, configDir().resolve(source.relativize(file).toString()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
    }

    /** Writes {@code elasticsearch.yml} for the current ports; takes effect at the next launch. */
    void writeConfig(List<NodePorts> allPorts, Map<String, String> securitySettings, Map<String, String> userSettings) {
        String yml = ElasticsearchYml.render(
                clusterName, index, allPorts, dir.resolve("data"), dir.resolve("logs"), securitySettings, userSettings);
        try {
            Files.writeString(configDir().resolve("elasticsearch.yml"), yml, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the config of " + name(), e);
        }
    }

    /** Starts {@code bin/elasticsearch -d} without waiting; {@link #poll()} follows it. */
    void launch(Path esHome, Path jdk, String heap, NodeUser user) {
        try {
            Files.deleteIfExists(pidFile()); // left by a killed node
            List<String> command = new ArrayList<>(user.commandPrefix());
            // Set through env(1), after runuser: it resets part of the environment it is given.
            command.addAll(List.of(
                    "env",
                    "ES_JAVA_HOME=" + jdk,
                    "ES_PATH_CONF=" + configDir(),
                    "ES_JAVA_OPTS=" + TestenvProperties.esJavaOpts(heap),
                    "CLI_JAVA_OPTS=" + TestenvProperties.LAUNCHER_JAVA_OPTS,
                    "ES_TMPDIR=" + dir.resolve("tmp"),
                    esHome.resolve("bin/elasticsearch").toString(),
                    "-d",
                    "-p",
                    pidFile().toString()));
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(launcherOutput().toFile());
            // Options meant for the test JVM would end up in both Elasticsearch JVMs.
            builder.environment().remove("JAVA_TOOL_OPTIONS");
            builder.environment().remove("_JAVA_OPTIONS");
            launcher = builder.start();
            server = null;
            failure = null;
        } catch (IOException e) {
            throw new EsClusterException("cannot launch " + name() + " of " + clusterName + ": " + e, e);
        }
    }

    /** Advances and returns the status; {@link #failure()} says why when it is FAILED. */
    Status poll() {
        if (server != null) {
            if (server.isAlive()) {
                return Status.RUNNING;
            }
            failure = "its process " + server.pid() + " died";
            server = null;
            return Status.FAILED;
        }
        Process starting = launcher;
        if (starting == null) {
            return failure == null ? Status.STOPPED : Status.FAILED;
        }
        if (starting.isAlive()) {
            return Status.STARTING;
        }
        launcher = null;
        if (starting.exitValue() != 0) {
            failure = "bin/elasticsearch exited with code " + starting.exitValue();
            return Status.FAILED;
        }
        server = readPid().flatMap(ProcessHandle::of).orElse(null);
        if (server == null) {
            failure = "bin/elasticsearch exited 0 but no process is running for pid file " + pidFile();
            return Status.FAILED;
        }
        return poll();
    }

    @Nullable
    String failure() {
        return failure;
    }

    boolean isRunning() {
        return poll() == Status.RUNNING;
    }

    /**
     * Suspends the server process with SIGSTOP, as a long GC pause or a hung VM would: it keeps its
     * sockets open but answers nothing. Returns once the kernel shows it stopped. Does nothing if it
     * is already frozen.
     *
     * @throws IllegalStateException if the node is not running
     */
    void freeze() {
        if (frozen) {
            return;
        }
        ProcessHandle process = runningServer("freeze");
        signal(process, "STOP");
        frozen = true;
        awaitStopped(process.pid(), true);
    }

    /** Continues a {@link #freeze() frozen} server with SIGCONT; does nothing if it is not frozen. */
    void thaw() {
        if (!frozen) {
            return;
        }
        process().ifPresent(p -> {
            signal(p, "CONT");
            awaitStopped(p.pid(), false);
        });
        frozen = false;
    }

    /**
     * Stops the node with SIGTERM, then SIGKILL if it has not exited after {@code grace}. A node
     * still starting is killed; a frozen one is continued first, or it could not shut down.
     */
    void stop(Duration grace) {
        if (launcher != null) {
            kill();
            return;
        }
        thaw();
        Optional<ProcessHandle> process = process();
        if (process.isPresent() && !(process.get().destroy() && awaitExit(process.get(), grace))) {
            kill();
            return;
        }
        forget();
    }

    /**
     * Kills the node and its launcher with SIGKILL (which also ends a frozen process) and waits until
     * they are gone.
     */
    void kill() {
        List<ProcessHandle> victims = new ArrayList<>();
        Process starting = launcher;
        if (starting != null) {
            starting.descendants().forEach(victims::add);
            victims.add(starting.toHandle());
        }
        process().ifPresent(victims::add);
        victims.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle victim : victims) {
            if (!awaitExit(victim, KILL_WAIT)) {
                throw new EsClusterException("process "
                        + victim.pid()
                        + " of "
                        + name()
                        + " is still alive "
                        + KILL_WAIT.toSeconds()
                        + " s after SIGKILL");
            }
            removeAttachSocket(victim.pid());
        }
        forget();
    }

    /**
     * The tail of the node's log for an error message, or of the launcher's output when the node
     * logged nothing (errors before its logging starts). The whole file is copied to {@code keepDir}
     * first: the node's directory is deleted on close.
     */
    String diagnostics(Path keepDir) {
        Path source = LogTail.of(log(), 1).isEmpty() ? launcherOutput() : log();
        String tail = LogTail.of(source, 60);
        if (tail.isEmpty()) {
            return " (the node wrote no log)";
        }
        Path kept = keepDir.resolve(clusterName + "-" + name() + ".log");
        try {
            Files.createDirectories(keepDir);
            Files.copy(source, kept, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            kept = source;
        }
        return "\n--- last lines of " + kept + " ---\n" + tail;
    }

    /** Whether the last start failed because a port was taken. */
    boolean failedToBind() {
        String text = LogTail.of(log(), 200) + LogTail.of(launcherOutput(), 200);
        return text.contains("BindException") || text.contains("Address already in use");
    }

    /**
     * The running node process, from memory or else from the pid file (a launcher killed mid-start
     * may have left a node behind).
     */
    private Optional<ProcessHandle> process() {
        ProcessHandle known = server;
        if (known != null) {
            return Optional.of(known);
        }
        return readPid().flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive);
    }

    private ProcessHandle runningServer(String action) {
        // poll() has set server when it says RUNNING.
        ProcessHandle running = poll() == Status.RUNNING ? server : null;
        if (running == null) {
            throw new IllegalStateException("cannot " + action + " " + name() + ": it is not running");
        }
        return running;
    }

    private void signal(ProcessHandle process, String signal) {
        Commands.Result result = Commands.run(
                List.of("kill", "-" + signal, String.valueOf(process.pid())), Map.of(), null, SIGNAL_TIMEOUT);
        if (!result.ok()) {
            throw new EsClusterException("kill -"
                    + signal
                    + " "
                    + process.pid()
                    + " ("
                    + name()
                    + ") exited "
                    + result.exitCode()
                    + ": "
                    + result.output().strip());
        }
    }

    /**
     * Waits until the kernel shows {@code pid} stopped (or running again): a signal is delivered
     * after {@code kill} returns, once every thread of the process has seen it.
     */
    private void awaitStopped(long pid, boolean stopped) {
        long deadline = System.nanoTime() + SIGNAL_TIMEOUT.toNanos();
        while (true) {
            String state;
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                state = stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
            } catch (IOException | RuntimeException e) {
                return; // no /proc here, or the process is gone: nothing to wait for
            }
            if (state.equals("T") == stopped) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new EsClusterException(name()
                        + " (pid "
                        + pid
                        + ") is in state "
                        + state
                        + " "
                        + SIGNAL_TIMEOUT.toSeconds()
                        + " s after SIGSTOP/SIGCONT");
            }
            ClusterHealth.sleep(Duration.ofMillis(10));
        }
    }

    /**
     * Elasticsearch 9 attaches an agent to its own JVM through {@code /tmp/.java_pid<pid>}, which a
     * SIGKILL leaves behind; a later JVM of another user that gets the same pid then cannot boot (the
     * file is not its own).
     */
    private static void removeAttachSocket(long pid) {
        try {
            Files.deleteIfExists(Path.of("/tmp", ".java_pid" + pid));
        } catch (IOException | SecurityException e) {
            // Not ours to remove (another user's, and we are not root): harmless unless the pid returns.
        }
    }

    private void forget() {
        launcher = null;
        server = null;
        failure = null;
        frozen = false;
        try {
            Files.deleteIfExists(pidFile());
        } catch (IOException e) {
            // The next launch deletes it again before starting.
        }
    }

    private Optional<Long> readPid() {
        return readPid(pidFile());
    }

    static Optional<Long> readPid(Path pidFile) {
        try {
            return Optional.of(Long.parseLong(Files.readString(pidFile).trim()));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private Path pidFile() {
        return dir.resolve("es.pid");
    }

    private Path launcherOutput() {
        return dir.resolve("launcher.log");
    }

    private static boolean awaitExit(ProcessHandle process, Duration timeout) {
        try {
            process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }
}
