package io.github.esrel.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** POSIX signals to processes this test started, through {@code kill(1)}: Java has no SIGSTOP. */
final class Signals {

    private Signals() {}

    static void send(long pid, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(pid))
                    .redirectErrorStream(true)
                    .start();
            String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + output.strip());
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + signal + " " + pid, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + pid, e);
        }
    }

    /**
     * Waits until {@code pid} is stopped ({@code T}) or no longer: the kernel delivers a signal after
     * {@code kill} returns, once every thread of the process has seen it.
     */
    static void await(long pid, boolean stopped) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (state(pid).equals("T") != stopped) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "process " + pid + " is in state " + state(pid) + " 10 s after the signal");
            }
            Thread.sleep(10);
        }
    }

    /** The scheduler state of {@code pid} ({@code R}, {@code S}, {@code T} when stopped), or {@code gone}. */
    static String state(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int end = stat.lastIndexOf(')');
            return stat.substring(end + 2, end + 3);
        } catch (IOException e) {
            return "gone";
        }
    }
}
