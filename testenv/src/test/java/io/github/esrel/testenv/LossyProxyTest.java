package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The proxy's framing and its two faults, in front of a JDK HTTP server that counts what reaches it. */
class LossyProxyTest {

    private HttpServer node;
    private final AtomicInteger writesApplied = new AtomicInteger();
    private LossyProxy proxy;
    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();

    @BeforeEach
    void start() throws IOException {
        node = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
        node.createContext("/", exchange -> {
            byte[] in = exchange.getRequestBody().readAllBytes();
            if (!exchange.getRequestMethod().equals("GET")
                    && !exchange.getRequestMethod().equals("HEAD")) {
                writesApplied.incrementAndGet();
            }
            byte[] out = ("{\"got\":" + in.length + "}").getBytes(StandardCharsets.UTF_8);
            if (exchange.getRequestURI().getPath().equals("/chunked")) {
                exchange.sendResponseHeaders(200, 0); // chunked
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(out);
                    body.write(out);
                }
            } else if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().add("Content-Length", "11");
                exchange.sendResponseHeaders(200, -1);
                exchange.close();
            } else {
                exchange.sendResponseHeaders(200, out.length);
                try (OutputStream body = exchange.getResponseBody()) {
                    body.write(out);
                }
            }
        });
        node.start();
        proxy = LossyProxy.to(URI.create("http://127.0.0.1:" + node.getAddress().getPort()))
                .seed(7);
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        node.stop(0);
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(proxy.uri().resolve(path)).timeout(Duration.ofSeconds(10));
        b.method(
                method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void shouldForwardRequestsAndAnswersOfEveryFramingOnOneConnection() throws Exception {
        assertThat(send("PUT", "/i/_doc/1", "{\"a\":1}").body()).isEqualTo("{\"got\":7}");
        assertThat(send("GET", "/chunked", null).body()).isEqualTo("{\"got\":0}{\"got\":0}");
        assertThat(send("HEAD", "/i", null).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/i", null).body()).isEqualTo("{\"got\":0}"); // the HEAD left the stream in step
        assertThat(proxy.requests()).isEqualTo(4);
        assertThat(proxy.answersDropped()).isZero();
    }

    @Test
    void shouldLoseTheAnswerAfterTheNodeAppliedTheRequest() throws Exception {
        proxy.dropAnswers(1.0, LossyProxy.WRITES);

        assertThatThrownBy(() -> send("PUT", "/i/_doc/1", "{}")).isInstanceOf(IOException.class);
        assertThat(writesApplied).hasValue(1);
        assertThat(proxy.answersDropped()).isEqualTo(1);
        assertThat(send("GET", "/i/_doc/1", null).statusCode()).isEqualTo(200); // reads pass
        assertThat(send("POST", "/i/_search", "{}").statusCode()).isEqualTo(200); // so do searches
    }

    @Test
    void shouldLoseTheRequestBeforeItReachesTheNode() throws Exception {
        proxy.dropRequests(1.0, LossyProxy.WRITES);

        assertThatThrownBy(() -> send("POST", "/i/_doc", "{}")).isInstanceOf(IOException.class);
        assertThat(writesApplied).hasValue(0);
        assertThat(proxy.requestsDropped()).isEqualTo(1);
    }

    @Test
    void shouldLoseTheAnswerToTheNextMatchingRequestOnce() throws Exception {
        proxy.dropAnswerToNext(line -> line.startsWith("DELETE "));

        assertThat(send("PUT", "/i/_doc/1", "{}").statusCode()).isEqualTo(200);
        assertThatThrownBy(() -> send("DELETE", "/i/_doc/1", null)).isInstanceOf(IOException.class);
        assertThat(send("DELETE", "/i/_doc/1", null).statusCode()).isEqualTo(200);
        assertThat(writesApplied).hasValue(3);
    }

    @Test
    void shouldLoseAboutTheShareAskedForAndHealOnRequest() throws Exception {
        proxy.dropAnswers(0.5, LossyProxy.ALL);
        int lost = 0;
        for (int i = 0; i < 200; i++) {
            try {
                send("POST", "/i/_doc", "{}");
            } catch (IOException e) {
                lost++;
            }
        }
        assertThat(lost).isBetween(60, 140);
        assertThat(proxy.answersDropped()).isEqualTo(lost);

        proxy.heal();
        assertThat(send("POST", "/i/_doc", "{}").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldSendARequestTwiceAndPassOnTheSecondAnswer() throws Exception {
        proxy.replayNextRequest(line -> line.startsWith("PUT "));

        assertThat(send("PUT", "/i/_doc/1", "{}").statusCode()).isEqualTo(200);
        assertThat(writesApplied).as("the node ran it twice").hasValue(2);
        assertThat(proxy.requestsReplayed()).isEqualTo(1);
        assertThat(send("PUT", "/i/_doc/1", "{}").statusCode()).isEqualTo(200);
        assertThat(writesApplied).as("once").hasValue(3);
    }

    @Test
    void shouldRefuseAnythingButAPlainHttpAddress() {
        assertThatThrownBy(() -> LossyProxy.to(URI.create("https://localhost:9200")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("http://host:port");
        assertThatThrownBy(() -> proxy.dropAnswers(1.5, LossyProxy.ALL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[0, 1]");
    }
}
