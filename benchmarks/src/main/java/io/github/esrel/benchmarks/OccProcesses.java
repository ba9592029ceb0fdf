package io.github.esrel.benchmarks;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.benchmarks.Votes.Counter;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.OccMetrics;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.testenv.Clients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@value #PROCESSES} child JVMs with {@value #THREADS_PER_PROCESS} writers each on one document, for
 * {@link OccBenchmark}: each combines its own writers, and the processes conflict with one another. Each child warms
 * up and says READY; then, for every GO on stdin, its writers vote and it prints
 * {@code DONE <conflicts> <attempts> <operations>}; it ends at EXIT or when stdin closes. The children live for many
 * rounds, so that the row can alternate with its baseline on a warm node (this machine's rates drift by half
 * between runs minutes apart).
 */
final class OccProcesses implements AutoCloseable {

    static final int PROCESSES = 4;
    static final int THREADS_PER_PROCESS = 4;

    /** Rounds of each child's writers x 100 votes before it says READY. */
    private static final int WARMUP_ROUNDS = 6;

    /**
     * What the processes did together in one round.
     *
     * @param cast the votes cast
     * @param conflicts the conflicts the children's writes met
     * @param attempts the attempts of their operations
     * @param operations their operations
     */
    record Run(long cast, long conflicts, long attempts, long operations) {
        static final Run NONE = new Run(0, 0, 0, 0);

        /** This run and {@code other} together. */
        Run plus(Run other) {
            return new Run(
                    cast + other.cast,
                    conflicts + other.conflicts,
                    attempts + other.attempts,
                    operations + other.operations);
        }

        /** Attempts beyond the first, per operation. */
        double wasted() {
            return operations == 0 ? 0 : (double) (attempts - operations) / operations;
        }
    }

    private final List<Process> children;
    private final List<BufferedReader> outs;
    private final int each;

    private OccProcesses(List<Process> children, List<BufferedReader> outs, int each) {
        this.children = children;
        this.outs = outs;
        this.each = each;
    }

    /**
     * Starts the children on the node at {@code uri} and waits until they are warm; each round, every writer votes
     * {@code each} times on {@code id}.
     */
    static OccProcesses start(String uri, String index, String id, int each) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> children = new ArrayList<>();
        List<BufferedReader> outs = new ArrayList<>();
        OccProcesses processes = new OccProcesses(children, outs, each);
        try {
            for (int p = 0; p < PROCESSES; p++) {
                children.add(new ProcessBuilder(
                                java,
                                "-Xmx256m",
                                "-cp",
                                System.getProperty("java.class.path"),
                                Child.class.getName(),
                                uri,
                                index,
                                id,
                                String.valueOf(THREADS_PER_PROCESS),
                                String.valueOf(each))
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start());
            }
            for (Process child : children) {
                BufferedReader r =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                String line = r.readLine();
                if (!"READY".equals(line)) {
                    throw new IllegalStateException("child JVM did not get ready: " + line);
                }
                outs.add(r);
            }
            return processes;
        } catch (Exception | Error e) {
            processes.close();
            throw e;
        }
    }

    /** One round: every child's writers vote; returns when the last child is done. */
    Run round() throws Exception {
        for (Process child : children) {
            child.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
            child.getOutputStream().flush();
        }
        Run run = new Run((long) PROCESSES * THREADS_PER_PROCESS * each, 0, 0, 0);
        for (BufferedReader r : outs) {
            String line = r.readLine();
            if (line == null || !line.startsWith("DONE ")) {
                throw new IllegalStateException("child JVM failed its round: " + line);
            }
            String[] done = line.split(" ");
            run = run.plus(new Run(0, Long.parseLong(done[1]), Long.parseLong(done[2]), Long.parseLong(done[3])));
        }
        return run;
    }

    @Override
    public void close() {
        for (Process child : children) {
            child.destroyForcibly();
            try {
                child.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** One process of {@link #start}: args = node URI, index, id, writers, votes per writer and round. */
    static final class Child {
        private Child() {}

        public static void main(String[] args) throws Exception {
            String index = args[1];
            String id = args[2];
            int writers = Integer.parseInt(args[3]);
            int each = Integer.parseInt(args[4]);
            try (ElasticsearchClient es = Clients.connect(List.of(URI.create(args[0])))) {
                OccMetrics metrics = new OccMetrics();
                // The default backoff between processes, with attempts enough never to give up here.
                Occ occ = Occ.of(
                        b -> b.client(es).listener(metrics).retryPolicy(RetryPolicy.of(p -> p.maxAttempts(1000))));
                String warm = "warm-" + ProcessHandle.current().pid();
                es.index(i -> i.index(index).id(warm).document(new Counter(0)));
                // Warm as the parent JVM is when it measures the one-writer baseline (a service's JVMs are long
                // running): rounds of its writers on a document of its own, so that the compiler is done before GO.
                for (int r = 0; r < WARMUP_ROUNDS; r++) {
                    Votes.writers(writers, 100, w -> occ.update(index, warm, Counter.class, Counter::vote));
                }
                System.out.println("READY");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                while ("GO".equals(in.readLine())) {
                    metrics.reset();
                    Votes.writers(writers, each, w -> occ.update(index, id, Counter.class, Counter::vote));
                    OccMetrics.Snapshot m = metrics.snapshot();
                    System.out.println("DONE " + m.conflicts() + " " + m.totalAttempts() + " " + m.operations());
                    System.out.flush();
                }
            }
        }
    }
}
