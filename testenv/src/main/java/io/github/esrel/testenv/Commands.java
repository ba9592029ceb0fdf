package io.github.esrel.testenv;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/** Runs short helper commands (useradd, elasticsearch-plugin, mvn) to completion. */
final class Commands {

    private Commands() {}

    /** Exit code and combined stdout/stderr of a finished command. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /**
     * Runs {@code command} with {@code env} added to this JVM's environment.
     *
     * @throws EsClusterException if it cannot be started or does not finish within {@code timeout}
     */
    static Result run(List<String> command, Map<String, String> env, @Nullable Path dir, Duration timeout) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        if (dir != null) {
            builder.directory(dir.toFile());
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new EsClusterException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        }
        // Read in the background so a chatty command cannot block on a full pipe.
        CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output unreadable: " + e + ")";
            }
        });
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                throw new EsClusterException(
                        String.join(" ", command) + " did not finish within " + timeout.toSeconds() + " s");
            }
            return new Result(process.exitValue(), output.join());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new EsClusterException("interrupted while running " + command.get(0), e);
        }
    }
}
