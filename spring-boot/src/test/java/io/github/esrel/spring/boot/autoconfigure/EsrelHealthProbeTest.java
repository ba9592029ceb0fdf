package io.github.esrel.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health check without a cluster: DOWN, and in bounded time, when nothing listens or when a server accepts the
 * connection and never answers. The client is Boot's, on a real socket; nothing is mocked.
 */
class EsrelHealthProbeTest {

    @Test
    void shouldBeDownWhenTheClusterIsUnreachable() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort(); // closed again: nothing listens there
        }
        withClient("http://127.0.0.1:" + port, client -> {
            EsrelHealthProbe.Check check = new EsrelHealthProbe(client, null, Duration.ofSeconds(10)).check();
            assertThat(check.up()).isFalse();
            assertThat(check.details()).containsKey("error");
        });
    }

    @Test
    void shouldBeDownWithinItsTimeoutWhenTheClusterDoesNotAnswer() throws IOException {
        List<Socket> accepted = new ArrayList<>();
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // accepted, read never, answered never
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            withClient("http://127.0.0.1:" + silent.getLocalPort(), client -> {
                long t0 = System.nanoTime();
                EsrelHealthProbe.Check check = new EsrelHealthProbe(client, null, Duration.ofMillis(500)).check();
                Duration took = Duration.ofNanos(System.nanoTime() - t0);

                assertThat(check.up()).isFalse();
                assertThat(check.details().get("error").toString())
                        .contains("no answer from the cluster within")
                        .endsWith("(esrel.health.timeout)");
                assertThat(took).isLessThan(Duration.ofSeconds(5));
            });
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    private static void withClient(String uri, java.util.function.Consumer<ElasticsearchClient> test) {
        new ApplicationContextRunner()
                .withConfiguration(BootLine.CLIENT)
                .withPropertyValues("spring.elasticsearch.uris=" + uri)
                .run(context -> test.accept(context.getBean(ElasticsearchClient.class)));
    }
}
