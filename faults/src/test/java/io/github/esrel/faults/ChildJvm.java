package io.github.esrel.faults;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A client process of the test: a JVM on the test class path running {@code main} of a class, talking
 * in lines (commands on its stdin, answers on its stdout), which the test can freeze and thaw with
 * SIGSTOP/SIGCONT as a long GC pause or a suspended VM would. Its stderr (logs) goes to
 * {@code target/faults-children/<name>.log}. {@link #close()} kills it (SIGKILL ends a stopped process
 * too), so it never outlives the test.
 */
final class ChildJvm implements AutoCloseable {

    private static final Path LOGS = Path.of("target", "faults-children");

    private final String name;
    private final Process process;
    private final Writer in;
    private final BlockingQueue<String> out = new ArrayBlockingQueue<>(1024);

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader r = new BufferedReader(
                            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line = r.readLine(); line != null; line = r.readLine()) {
                            out.put(line);
                        }
                    } catch (IOException | InterruptedException e) {
                        // The child is gone; readers see no more lines.
                    }
                },
                "child-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM (the test JVM's java and class path).
     *
     * @throws IOException if it cannot be started
     */
    static ChildJvm start(String name, Class<?> mainClass, List<String> args) throws IOException {
        Files.createDirectories(LOGS);
        String java = ProcessHandle.current().info().command().orElse("java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<String> command = new ArrayList<>(List.of(java, "-Xmx128m", "-cp", classpath, mainClass.getName()));
        command.addAll(args);
        Process p = new ProcessBuilder(command)
                .redirectError(LOGS.resolve(name + ".log").toFile())
                .start();
        return new ChildJvm(name, p);
    }

    long pid() {
        return process.pid();
    }

    /** Sends one command line. */
    void send(String line) throws IOException {
        in.write(line + "\n");
        in.flush();
    }

    /**
     * The next line the child printed.
     *
     * @throws AssertionError if none comes within {@code timeout} (the child's log is named)
     */
    String read(Duration timeout) throws InterruptedException {
        String line = out.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
            throw new AssertionError("child " + name + " printed nothing within " + timeout.toSeconds() + " s (alive: "
                    + process.isAlive() + "); see "
                    + LOGS.resolve(name + ".log").toAbsolutePath());
        }
        return line;
    }

    /** The next line, which must start with {@code prefix}; returns the rest after it. */
    String expect(String prefix, Duration timeout) throws InterruptedException {
        String line = read(timeout);
        if (!line.startsWith(prefix)) {
            throw new AssertionError("child " + name + " printed '" + line + "', expected '" + prefix + "...'");
        }
        return line.substring(prefix.length()).trim();
    }

    /** SIGSTOP: the child stops where it is, threads, timers and sockets included; returns once it has. */
    void freeze() throws InterruptedException {
        Signals.send(process.pid(), "STOP");
        Signals.await(process.pid(), true);
    }

    /** SIGCONT: the child carries on where it stopped, as if no time had passed; returns once it runs. */
    void thaw() throws InterruptedException {
        Signals.send(process.pid(), "CONT");
        Signals.await(process.pid(), false);
    }

    /** The child's process state from {@code /proc}: {@code T} while stopped. */
    String state() {
        return Signals.state(process.pid());
    }

    boolean waitFor(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Kills the child (SIGKILL, which ends a stopped process too) and waits for it. The kill is sent before
     * anything can interrupt; an interrupt only cuts the wait short, and stays set for the test to see.
     */
    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
