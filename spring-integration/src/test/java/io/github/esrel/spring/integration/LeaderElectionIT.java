package io.github.esrel.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Leader election with Spring Integration's {@code LockRegistryLeaderInitiator} on an {@link EsrelLockRegistry}, three
 * candidate JVMs ({@link LeaderCandidateMain}) on a real node: one leader at a time; the leader killed ({@code kill
 * -9}) or frozen ({@code kill -STOP}) past its lease is followed by a new leader with a higher fencing token within
 * the lease, a heartbeat and a busy wait, plus {@link #MARGIN} (JVM and CI scheduling); the frozen leader, continued,
 * is revoked and its write fenced with its old token is refused (409).
 */
@EsrelTest
class LeaderElectionIT {

    /** The candidates' lease. */
    static final Duration TTL = Duration.ofSeconds(3);

    /** Slack for process scheduling on a loaded CI machine and for the request that finds the lock free. */
    static final Duration MARGIN = Duration.ofSeconds(3);

    /** The longest a successor may take: the lease, then one heartbeat's tryLock and one busy wait, plus the margin. */
    static final Duration TAKEOVER = TTL.plusMillis(LeaderCandidateMain.HEARTBEAT_MILLIS)
            .plusMillis(LeaderCandidateMain.BUSY_WAIT_MILLIS)
            .plus(MARGIN);

    private static final String INDEX = "si-leader-election";

    @Cluster
    static final EsCluster cluster = EsCluster.builder().shared().build();

    private final List<Candidate> candidates = new ArrayList<>();
    private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<String> history = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** Each candidate's token while it says it leads. */
    private final Map<Integer, Long> leading = new ConcurrentHashMap<>();

    private long highestGranted = 0;

    record Event(int candidate, String kind, long token, long nanos) {}

    record Candidate(int n, Process process, Path log) {}

    @Test
    void oneLeaderAtATimeThroughKillAndFreeze() throws Exception {
        ElasticsearchClient es = cluster.client();
        if (!es.indices().exists(e -> e.index(INDEX)).value()) {
            es.indices().create(c -> c.index(INDEX));
        }
        for (int i = 0; i < 3; i++) {
            candidates.add(start(i));
        }

        // One leader, and only one.
        Event first = await(e -> e.kind().equals("GRANTED"), Duration.ofSeconds(60));
        await(e -> e.kind().equals("WRITE-OK") && e.token() == first.token(), Duration.ofSeconds(10));
        Thread.sleep(TTL.toMillis()); // several heartbeats: nobody else is granted (checked in await)
        drain();
        assertThat(leading).containsOnlyKeys(first.candidate());

        // kill -9 of the leader: a successor with a higher token within TAKEOVER.
        long killed = System.nanoTime();
        candidates.get(first.candidate()).process().destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        leading.remove(first.candidate());
        Event second = await(e -> e.kind().equals("GRANTED"), TAKEOVER.plusSeconds(10));
        System.out.println("after kill -9: leader in "
                + Duration.ofNanos(second.nanos() - killed).toMillis() + " ms");
        assertThat(Duration.ofNanos(second.nanos() - killed)).isLessThan(TAKEOVER);
        assertThat(second.token()).isGreaterThan(first.token());
        await(e -> e.kind().equals("WRITE-OK") && e.token() == second.token(), Duration.ofSeconds(10));

        // kill -STOP of the new leader past its lease: a successor with a higher token within TAKEOVER.
        Candidate frozen = candidates.get(second.candidate());
        signal("STOP", frozen);
        long stopped = System.nanoTime();
        Event third = await(e -> e.kind().equals("GRANTED"), TAKEOVER.plusSeconds(10));
        assertThat(third.candidate()).isNotEqualTo(second.candidate());
        System.out.println("after kill -STOP: leader in "
                + Duration.ofNanos(third.nanos() - stopped).toMillis() + " ms");
        assertThat(Duration.ofNanos(third.nanos() - stopped)).isLessThan(TAKEOVER);
        assertThat(third.token()).isGreaterThan(second.token());
        await(e -> e.kind().equals("WRITE-OK") && e.token() == third.token(), Duration.ofSeconds(10));

        // kill -CONT: the old leader learns it lost the lease, is revoked, and its fenced write is refused.
        signal("CONT", frozen);
        await(
                e -> e.candidate() == second.candidate() && e.kind().equals("REVOKED") && e.token() == second.token(),
                Duration.ofSeconds(15));
        await(
                e -> e.candidate() == second.candidate()
                        && e.kind().equals("WRITE-REFUSED")
                        && e.token() == second.token(),
                Duration.ofSeconds(10));
        Thread.sleep(1000);
        drain();
        assertThat(leading).containsOnlyKeys(third.candidate());
        assertThat(es.get(g -> g.index(INDEX).id("heartbeat"), Map.class).version())
                .isEqualTo(third.token());
    }

    @AfterEach
    void killAll() throws Exception {
        for (Candidate c : candidates) {
            if (c.process().isAlive()) {
                signal("CONT", c);
                c.process().destroyForcibly();
            }
        }
        for (Candidate c : candidates) {
            c.process().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private Candidate start(int n) throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Path log = Files.createTempFile(Path.of("target"), "leader-candidate-" + n + "-", ".log");
        Process p = new ProcessBuilder(
                        java,
                        "-Xmx128m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        LeaderCandidateMain.class.getName(),
                        cluster.httpUri().toString(),
                        INDEX,
                        "candidate-" + n,
                        Long.toString(TTL.toMillis()))
                .redirectError(log.toFile())
                .start();
        Candidate c = new Candidate(n, p, log);
        Thread reader = new Thread(() -> read(c), "candidate-" + n + "-stdout");
        reader.setDaemon(true);
        reader.start();
        return c;
    }

    private void read(Candidate c) {
        try (BufferedReader r =
                new BufferedReader(new InputStreamReader(c.process().getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                String[] parts = line.split(" ");
                long token = parts.length > 1 && parts[1].matches("\\d+") ? Long.parseLong(parts[1]) : -1;
                events.add(new Event(c.n(), parts[0], token, System.nanoTime()));
                history.add(c.n() + ": " + line);
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    /**
     * Takes events until one matches, checking each: a grant's token is higher than every earlier grant's, and no
     * other candidate that can still run (neither killed nor frozen) leads at that moment.
     */
    private Event await(Predicate<Event> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            Event e = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
            if (e == null) {
                throw new AssertionError("no awaited event within " + timeout + "; leading " + leading + "\n"
                        + String.join("\n", history) + "\n" + logs());
            }
            check(e);
            if (wanted.test(e)) {
                return e;
            }
        }
    }

    private void drain() {
        Event e;
        while ((e = events.poll()) != null) {
            check(e);
        }
    }

    private void check(Event e) {
        switch (e.kind()) {
            case "GRANTED" -> {
                assertThat(e.token()).as("a new leader's token").isGreaterThan(highestGranted);
                highestGranted = e.token();
                for (Map.Entry<Integer, Long> other : leading.entrySet()) {
                    Optional<String> state =
                            state(candidates.get(other.getKey()).process());
                    assertThat(state)
                            .as(
                                    "candidate %s still leads with token %s when %s is granted %s",
                                    other.getKey(), other.getValue(), e.candidate(), e.token())
                            .hasValueSatisfying(s -> assertThat(s).startsWith("T"));
                }
                leading.put(e.candidate(), e.token());
            }
            case "REVOKED" -> leading.remove(e.candidate());
            default -> {}
        }
    }

    /** The process's state letter in /proc ({@code T} when stopped), empty once it is gone. */
    private static Optional<String> state(Process p) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
            return Optional.of(stat.substring(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static void signal(String signal, Candidate c) throws IOException, InterruptedException {
        new ProcessBuilder("kill", "-" + signal, Long.toString(c.process().pid()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start()
                .waitFor(10, TimeUnit.SECONDS);
    }

    private String logs() {
        StringBuilder sb = new StringBuilder();
        for (Candidate c : candidates) {
            try {
                List<String> lines = Files.readAllLines(c.log());
                sb.append("--- candidate ")
                        .append(c.n())
                        .append(" (")
                        .append(c.log())
                        .append(")\n");
                lines.subList(Math.max(0, lines.size() - 30), lines.size())
                        .forEach(l -> sb.append(l).append('\n'));
            } catch (IOException e) {
                sb.append("--- candidate ").append(c.n()).append(": ").append(e).append('\n');
            }
        }
        return sb.toString();
    }
}
