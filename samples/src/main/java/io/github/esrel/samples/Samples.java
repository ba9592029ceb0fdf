package io.github.esrel.samples;

import io.github.esrel.samples.blog.BlogSample;
import io.github.esrel.samples.fs.FileSystemRenameSample;
import io.github.esrel.samples.photos.PhotoUserViewSample;
import io.github.esrel.samples.rename.UserRenameSample;
import io.github.esrel.samples.routing.RoutingSkewSample;
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
        return List.of(new RoutingSkewSample(), new TshirtVotesSample(), new FileSystemRenameSample(),
            new BlogSample(), new UserRenameSample(), new PhotoUserViewSample());
    }

    private Samples() {}

    public static void main(String[] args) throws Exception {
        List<Sample> chosen = choose(args.length == 0 ? "all" : args[0]);
        PrintStream out = System.out;
        try (EsCluster cluster = EsCluster.builder().build()) {
            out.println("Starting a real Elasticsearch node with the esrel plugin...");
            cluster.start();
            out.printf("Elasticsearch %s at %s (%s backend)%n", cluster.version(), cluster.httpUri(), cluster.backendName());
            out.printf("Client: %s on elasticsearch-java %s%n%n",
                System.getProperty("esrel.samples.client", "esrel-client"), co.elastic.clients.transport.Version.VERSION);
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
        List<Sample> chosen = all().stream().filter(s -> names.remove(s.name())).collect(Collectors.toList());
        if (!names.isEmpty()) {
            throw new IllegalArgumentException("unknown sample(s) " + names + "; known: "
                + all().stream().map(Sample::name).collect(Collectors.joining(", ")));
        }
        return chosen;
    }
}
