package io.github.esrel.benchmarks;

import io.github.esrel.testenv.EsCluster;

import java.io.PrintStream;
import java.util.List;

/**
 * Runs the benchmarks against an embedded real node with the plugin installed. Each prints its
 * figures next to a baseline measured in the same run, as ratios: these machines are noisy, so only
 * same-run comparisons mean anything. Usage: {@code Benchmarks [all|routing]}.
 */
public final class Benchmarks {

    private Benchmarks() {}

    public static void main(String[] args) throws Exception {
        String which = args.length == 0 ? "all" : args[0];
        PrintStream out = System.out;
        List<String> known = List.of("routing", "occ", "locks", "join", "propagation");
        if (!which.equals("all") && !known.contains(which)) {
            throw new IllegalArgumentException("unknown benchmark [" + which + "]; known: " + known);
        }
        try (EsCluster cluster = EsCluster.builder().heap("1g").build()) {
            cluster.start();
            out.printf("Elasticsearch %s, %d cores, JVM %s%n", cluster.version(), Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
            if (which.equals("all") || which.equals("routing")) {
                new RoutingBenchmark(cluster.client(), out).run();
            }
            if (which.equals("all") || which.equals("occ")) {
                new OccBenchmark(cluster.client(), out).run();
            }
            if (which.equals("all") || which.equals("locks")) {
                new LockBenchmark(cluster.client(), out).run();
            }
            if (which.equals("all") || which.equals("join")) {
                new JoinBenchmark(cluster.client(), out).run();
            }
            if (which.equals("all") || which.equals("propagation")) {
                new PropagationBenchmark(cluster.client(), out).run();
            }
        }
    }
}
