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
 * up, says READY, waits for GO on stdin, votes and prints {@code DONE <conflicts> <attempts> <operations>}.
 */
final class OccProcesses {

    static final int PROCESSES = 4;
    static final int THREADS_PER_PROCESS = 4;

    /**
     * What the processes did together.
     *
     * @param cast the votes cast
     * @param nanos the wall time from GO to the last DONE
     * @param conflicts the conflicts the children's writes met
     * @param attempts the attempts of their operations
     * @param operations their operations
     */
    record Run(long cast, long nanos, long conflicts, long attempts, long operations) {
        /** Attempts beyond the first, per operation. */
        double wasted() {
            return operations == 0 ? 0 : (double) (attempts - operations) / operations;
        }
    }

    private OccProcesses() {}

    /** Starts the children on the node at {@code uri}, lets them vote {@code each} times per writer on {@code id}. */
    static Run run(String uri, String index, String id, int each) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<Process> children = new ArrayList<>();
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
            List<BufferedReader> outs = new ArrayList<>();
            for (Process child : children) {
                BufferedReader r =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                String line = r.readLine();
                if (!"READY".equals(line)) {
                    throw new IllegalStateException("child JVM did not get ready: " + line);
                }
                outs.add(r);
            }
            long t0 = System.nanoTime();
            for (Process child : children) {
                child.getOutputStream().write("GO\n".getBytes(StandardCharsets.UTF_8));
                child.getOutputStream().flush();
            }
            long conflicts = 0;
            long attempts = 0;
            long operations = 0;
            for (BufferedReader r : outs) {
                String[] done = r.readLine().split(" ");
                conflicts += Long.parseLong(done[1]);
                attempts += Long.parseLong(done[2]);
                operations += Long.parseLong(done[3]);
            }
            long nanos = System.nanoTime() - t0;
            return new Run((long) PROCESSES * THREADS_PER_PROCESS * each, nanos, conflicts, attempts, operations);
        } finally {
            for (Process child : children) {
                child.destroyForcibly();
                child.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    /** One process of {@link #run}: args = node URI, index, id, writers, votes per writer. */
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
                Votes.writers(writers, 20, w -> occ.update(index, warm, Counter.class, Counter::vote));
                metrics.reset();
                System.out.println("READY");
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                if (!"GO".equals(in.readLine())) {
                    return;
                }
                Votes.writers(writers, each, w -> occ.update(index, id, Counter.class, Counter::vote));
                OccMetrics.Snapshot m = metrics.snapshot();
                System.out.println("DONE " + m.conflicts() + " " + m.totalAttempts() + " " + m.operations());
                System.out.flush();
            }
        }
    }
}
