package io.github.esrel.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every sample runs against a real node and finishes: the samples check their own claims against
 * the cluster (they throw when reality disagrees with what they print), so the README's main command
 * cannot silently rot.
 */
@EsrelTest
class SamplesIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().build();

    @TestFactory
    Stream<DynamicTest> everySampleRunsAgainstARealNode() {
        return Samples.all().stream()
                .map(sample -> DynamicTest.dynamicTest(sample.name(), () -> {
                    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                    try (PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8)) {
                        sample.run(cluster.client(), out);
                    }
                    String printed = buffer.toString(StandardCharsets.UTF_8);
                    System.out.println(printed);
                    assertThat(printed).isNotBlank();
                }));
    }
}
