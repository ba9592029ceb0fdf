package io.github.esrel.internal;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.json.JsonpMapper;
import co.elastic.clients.json.jackson.JacksonJsonpMapper;
import co.elastic.clients.transport.ElasticsearchTransport;
import co.elastic.clients.transport.TransportException;
import co.elastic.clients.transport.Version;
import co.elastic.clients.transport.http.TransportHttpClient;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What every esrel entry point does with the client it is given, once: check that the server accepts this
 * client line's requests, and make the client report HTTP errors the same way on every transport.
 *
 * <p>Internal: not part of esrel's API, may change without notice.
 */
public final class Clients {

    private static final String LEGACY_TRANSPORT = "co.elastic.clients.transport.rest_client.RestClientTransport";
    /** Transports whose server accepted this client line; weak, so a closed client is forgotten. */
    private static final Map<ElasticsearchTransport, Boolean> ACCEPTED =
            Collections.synchronizedMap(new WeakHashMap<>());

    /**
     * esrel's own mapper: Jackson 2 with its defaults, for the JSON esrel writes and reads itself. Shared, as
     * {@link JacksonJsonpMapper} is thread-safe once built.
     */
    private static final JsonpMapper ESREL_MAPPER = new JacksonJsonpMapper();

    /** What is wrong with the elasticsearch-java on the class path, or {@code null}: checked once per class loader. */
    private static final @Nullable String CLIENT_VERSION_PROBLEM = clientVersionProblem(Version.VERSION);

    private Clients() {}

    /**
     * Why esrel cannot run on elasticsearch-java {@code version}, or {@code null} if it can. Applications do not
     * always choose that version: a framework's dependency management (Spring Boot's BOM) pins it for every
     * library, esrel's dependency included, so the message names the property that overrides Boot's pin.
     */
    static @Nullable String clientVersionProblem(Version version) {
        if (version == null) {
            return null; // a client built from source reports no version: nothing to judge
        }
        int[] min = ClientApi.MIN_CLIENT;
        boolean tooOld = version.major() < min[0] || version.major() == min[0] && version.minor() < min[1];
        boolean otherLine = version.major() != ClientApi.CLIENT_MAJOR;
        if (!tooOld && !otherLine) {
            return null;
        }
        String wanted = min[0] + "." + min[1] + " or a newer " + ClientApi.CLIENT_MAJOR + ".x";
        return "io.github.esrel:" + ClientApi.ARTIFACT + " needs elasticsearch-java " + wanted + ", but "
                + version.major() + "." + version.minor() + "." + version.maintenance() + " is on the class path"
                + (otherLine && (version.major() == 8 || version.major() == 9)
                        ? "; for elasticsearch-java " + version.major() + ".x use io.github.esrel:"
                                + ClientApi.OTHER_ARTIFACT
                        : "")
                + ". If a BOM chose it (Spring Boot manages elasticsearch-java), set the Maven or Gradle property"
                + " elasticsearch-client.version to a version from " + min[0] + "." + min[1] + " on";
    }

    /**
     * The client esrel uses in place of {@code client}: the same HTTP client, on a transport that never lets the
     * low-level client send a request that changes something a second time (see {@link ResendGuard}) and that
     * reports HTTP errors as elasticsearch-java's default transport does (see {@link StatusNormalizingTransport}).
     *
     * @throws NullPointerException  if {@code client} is null
     * @throws IllegalStateException if the server refuses every request of this client line (an 8.x server
     *                               and elasticsearch-java 9.x, say), naming the esrel artifact to use instead
     */
    public static ElasticsearchClient adopt(ElasticsearchClient client) {
        Objects.requireNonNull(client, "client cannot be null");
        if (CLIENT_VERSION_PROBLEM != null) {
            throw new IllegalStateException(CLIENT_VERSION_PROBLEM);
        }
        ElasticsearchTransport transport = client._transport();
        if (transport instanceof ResendGuard) {
            return client; // adopted already (an entry point handing its client to another)
        }
        checkServerAcceptsClientLine(client);
        ElasticsearchTransport normalized =
                isLegacyRestClientTransport(transport) ? StatusNormalizingTransport.wrap(transport) : transport;
        return new ElasticsearchClient(ResendGuard.wrap(normalized), client._transportOptions());
    }

    /**
     * Whether esrel sees every copy of a request that {@code client} (one of esrel's, from {@link #adopt} or
     * {@link #internal}) sends: true on the transports of elasticsearch-java's low-level clients, where esrel's writes
     * are never sent twice (see {@link ResendGuard}); false on a transport of the application's making, where a
     * conflict may be the answer to a copy.
     *
     * @param client a client from {@link #adopt} or {@link #internal}
     * @return whether its copies are seen
     */
    public static boolean seesEveryCopy(ElasticsearchClient client) {
        return client._transport() instanceof ResendGuard guard && guard.seesCopies();
    }

    /**
     * The client esrel sends its own JSON with: {@linkplain #adopt adopted}, on esrel's own Jackson 2 mapper and
     * the application's HTTP client (see {@link EsrelTransport}). Entry points that read sources as trees or write
     * documents of esrel's (locks, checkpoints, view state) use it, so that neither depends on the application's
     * mapper: a Jackson 3 mapper cannot read into Jackson 2 trees, and a Jackson 2 one configured for the
     * application's classes (snake_case names, numbers as strings) must not reshape esrel's documents. The
     * application's documents are mapped with the application's mapper all the same, through {@link DocumentMapper}.
     *
     * <p>A client on a transport that shows no HTTP client (one of the application's own making) is used as it is
     * when its mapper is a {@link JacksonJsonpMapper}.
     *
     * @throws NullPointerException     if {@code client} is null
     * @throws IllegalStateException    as {@link #adopt}
     * @throws IllegalArgumentException if the transport shows no HTTP client and the mapper is not Jackson 2's
     */
    public static ElasticsearchClient internal(ElasticsearchClient client) {
        ElasticsearchClient adopted = adopt(client);
        ElasticsearchTransport transport = ((ResendGuard) adopted._transport()).delegate();
        boolean normalized = transport instanceof StatusNormalizingTransport;
        ElasticsearchTransport base = normalized ? ((StatusNormalizingTransport) transport).delegate() : transport;
        if (base instanceof EsrelTransport) {
            return adopted; // esrel's already (an entry point handing its client to another)
        }
        TransportHttpClient http = ClientApi.httpClient(base);
        if (http == null) {
            if (adopted._jsonpMapper() instanceof JacksonJsonpMapper) {
                return adopted;
            }
            throw new IllegalArgumentException("esrel reads and writes its own documents with Jackson 2: the client's"
                    + " transport (" + base.getClass().getName() + ") does not show the HTTP client to share and its"
                    + " mapper (" + adopted._jsonpMapper().getClass().getName() + ") is not a JacksonJsonpMapper;"
                    + " build the client on " + (ClientApi.CLIENT_MAJOR >= 9 ? "Rest5ClientTransport or " : "")
                    + "RestClientTransport, or with a JacksonJsonpMapper");
        }
        ElasticsearchTransport esrel = new EsrelTransport(http, base.options(), ESREL_MAPPER);
        return new ElasticsearchClient(
                ResendGuard.wrap(normalized ? StatusNormalizingTransport.wrap(esrel) : esrel),
                adopted._transportOptions());
    }

    /**
     * Sends one request ({@code GET /}) the first time a transport is seen. Any answer but a refusal of the
     * media types proves the server parses this client's requests: an error status (403 for a user without
     * {@code monitor}, 405 on a distribution without the root endpoint) included. A failure to connect decides
     * nothing; the next entry point built on this transport asks again.
     */
    private static void checkServerAcceptsClientLine(ElasticsearchClient client) {
        ElasticsearchTransport transport = client._transport();
        if (ACCEPTED.containsKey(transport)) {
            return;
        }
        try {
            client.info();
        } catch (ElasticsearchException e) {
            if (e.status() == 400
                    && e.error() != null
                    && "media_type_header_exception".equals(e.error().type())) {
                throw new IllegalStateException(refusedMessage(e));
            }
        } catch (TransportException e) {
            // An answer the client could not decode (a 405 without a JSON body, say): the request was parsed.
        } catch (IOException | RuntimeException e) {
            return; // no answer: decide on a later call
        }
        ACCEPTED.put(transport, Boolean.TRUE);
    }

    static String refusedMessage(ElasticsearchException e) {
        String reason = e.error().causedBy() != null && e.error().causedBy().reason() != null
                ? e.error().causedBy().reason()
                : e.error().reason();
        if (ClientApi.CLIENT_MAJOR >= 9) {
            return "the Elasticsearch server refuses the requests of elasticsearch-java " + ClientApi.CLIENT_MAJOR
                    + ".x (it answered [" + reason + "] to a request sent with compatible-with="
                    + ClientApi.CLIENT_MAJOR
                    + "): it runs a version before " + ClientApi.CLIENT_MAJOR
                    + ".0. For Elasticsearch 8.19 use the artifact "
                    + "io.github.esrel:" + ClientApi.OTHER_ARTIFACT + " with an elasticsearch-java 8.x client; "
                    + ClientApi.ARTIFACT + " needs Elasticsearch 9.x";
        }
        return "the Elasticsearch server refuses the requests of elasticsearch-java " + ClientApi.CLIENT_MAJOR
                + ".x (it answered [" + reason + "] to a request sent with compatible-with=" + ClientApi.CLIENT_MAJOR
                + "): it runs a version before " + ClientApi.CLIENT_MAJOR
                + ".0, which esrel does not support (Elasticsearch 8.19 and 9.x)";
    }

    /** Whether {@code transport} is, or extends, the RestClient-based transport (checked by name: its jar is optional in 9.x). */
    private static boolean isLegacyRestClientTransport(ElasticsearchTransport transport) {
        for (Class<?> c = transport.getClass(); c != null; c = c.getSuperclass()) {
            if (c.getName().equals(LEGACY_TRANSPORT)) {
                return true;
            }
        }
        return false;
    }
}
