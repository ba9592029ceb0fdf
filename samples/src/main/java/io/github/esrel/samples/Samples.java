package io.github.esrel.samples;

import io.github.esrel.samples.blog.BlogSample;
import io.github.esrel.samples.fs.FileSystemRenameSample;
import io.github.esrel.samples.photos.PhotoUserViewSample;
import io.github.esrel.samples.rename.UserRenameSample;
import io.github.esrel.samples.routing.RoutingSkewSample;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.votes.TshirtVotesSample;
import io.github.esrel.testenv.EsCluster;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs the samples against an embedded real Elasticsearch node with the esrel plugin installed
 * (started and stopped by testenv). Usage: {@code Samples [all|name,name,...]}.
 */
public final class Samples {

    /** Every sample, in the order they run. */
    public static List<Sample> all() {
        return List.of(
                new RoutingSkewSample(),
                new TshirtVotesSample(),
                new FileSystemRenameSample(),
                new BlogSample(),
                new UserRenameSample(),
                new PhotoUserViewSample());
    }

    /**
     * The Spring Boot sample's name: it runs in its own module (samples/spring, a Boot application), after these;
     * here it is a known name with nothing to run.
     */
    static final String SPRING = "spring";

    private Samples() {}

    public static void main(String[] args) throws Exception {
        List<Sample> chosen = choose(args.length == 0 ? "all" : args[0]);
        PrintStream out = System.out;
        if (chosen.isEmpty()) {
            out.println("Only the Spring Boot sample was chosen: it runs in samples/spring, no node needed here.");
            return;
        }
        String version = System.getProperty("esrel.es.version", "9.5.3");
        try (EsCluster cluster = EsCluster.builder().build()) {
            out.printf(
                    "Starting a real Elasticsearch %s node with the esrel plugin: testenv's %s backend (-Desrel.testenv.backend),"
                            + " the distribution Maven fetched into ~/.m2 (about 100-130 MB, once), unpacked with the plugin on first use;"
                            + " the node takes 15-40 s to start on 2 cores%n",
                    version, System.getProperty("esrel.testenv.backend", "auto"));
            cluster.start();
            out.printf(
                    "Elasticsearch %s at %s (%s backend)%n",
                    cluster.version(), cluster.httpUri(), cluster.backendName());
            out.printf(
                    "Client: %s on elasticsearch-java %s%n%n",
                    System.getProperty("esrel.samples.client", "esrel-client"),
                    co.elastic.clients.transport.Version.VERSION);
            for (Sample sample : chosen) {
                out.println("=".repeat(100));
                out.printf("[%s] %s%n", sample.name(), sample.title());
                out.println("=".repeat(100));
                sample.run(cluster.client(), out);
                out.println();
            }
        }
        out.println("All samples finished.");
    }

    static List<Sample> choose(String spec) {
        if (spec.isBlank() || spec.equals("all")) {
            return all();
        }
        Set<String> names = new LinkedHashSet<>(Arrays.asList(spec.split("\\s*,\\s*")));
        names.remove(SPRING);
        List<Sample> chosen = all().stream().filter(s -> names.remove(s.name())).collect(Collectors.toList());
        if (!names.isEmpty()) {
            throw new IllegalArgumentException("unknown sample(s) " + names + "; known: "
                    + all().stream().map(Sample::name).collect(Collectors.joining(", ")) + ", " + SPRING);
        }
        return chosen;
    }
}
