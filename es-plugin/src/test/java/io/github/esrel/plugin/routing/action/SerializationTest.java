package io.github.esrel.plugin.routing.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.esrel.plugin.routing.RoutingFunctionType;
import io.github.esrel.plugin.routing.RoutingParameters;
import java.io.IOException;
import java.util.List;
import org.elasticsearch.common.Strings;
import org.elasticsearch.common.io.stream.BytesStreamOutput;
import org.elasticsearch.common.io.stream.StreamInput;
import org.elasticsearch.common.io.stream.Writeable;
import org.junit.jupiter.api.Test;

class SerializationTest {

    private static final RoutingParameters PARAMETERS =
            new RoutingParameters(5, 640, 128, 1, RoutingFunctionType.LEGACY, false);

    @Test
    void shouldRoundTripRequests() throws IOException {
        for (RoutingCalcRequest request : List.of(
                RoutingCalcRequest.doc("idx", "1", null),
                RoutingCalcRequest.doc("idx", "\ud83d\ude00", "r"),
                RoutingCalcRequest.search("alias", "a,b"),
                RoutingCalcRequest.batch("idx", List.of(new RoutingCalcDoc("1", "a"), new RoutingCalcDoc("2", null))),
                new RoutingCalcRequest(new String[] {"a", "b*"}, null, null, null))) {
            assertThat(roundTrip(request, RoutingCalcRequest::new)).isEqualTo(request);
        }
        for (HypotheticalRoutingCalcRequest request : List.of(
                new HypotheticalRoutingCalcRequest(5, 640, 2, "9.5.3", "modulo", List.of(new RoutingCalcDoc("1", "r"))),
                new HypotheticalRoutingCalcRequest(null, null, null, null, null, null))) {
            assertThat(roundTrip(request, HypotheticalRoutingCalcRequest::new)).isEqualTo(request);
        }
    }

    @Test
    void shouldRoundTripResponses() throws IOException {
        for (RoutingCalcResponse response : List.of(
                RoutingCalcResponse.doc("idx", PARAMETERS, "1", null, 3),
                RoutingCalcResponse.search("idx", PARAMETERS, "r", null, new int[] {0, 4}),
                RoutingCalcResponse.batch(
                        null,
                        new RoutingParameters(2, 1024, 512, 1, RoutingFunctionType.MODULO, true),
                        List.of(new DocShard("1", "a", 1), new DocShard("2", null, 0)),
                        new int[] {1, 1},
                        1.0,
                        List.of("a warning")))) {
            assertThat(roundTrip(response, RoutingCalcResponse::new)).isEqualTo(response);
        }
    }

    @Test
    void shouldRenderTheDocumentedJson() {
        assertThat(Strings.toString(RoutingCalcResponse.doc("idx", PARAMETERS, "1", "r", 3)))
                .isEqualTo(
                        "{\"index\":\"idx\",\"id\":\"1\",\"routing\":\"r\",\"shard\":3,\"number_of_shards\":5,\"routing_num_shards\":640,"
                                + "\"routing_factor\":128,\"routing_partition_size\":1,\"routing_function\":\"legacy\",\"routing_required\":false}");
        assertThat(Strings.toString(RoutingCalcResponse.search("idx", PARAMETERS, "r", null, new int[] {0, 4})))
                .isEqualTo(
                        "{\"index\":\"idx\",\"id\":null,\"routing\":\"r\",\"shard\":null,\"shards\":[0,4],\"number_of_shards\":5,"
                                + "\"routing_num_shards\":640,\"routing_factor\":128,\"routing_partition_size\":1,\"routing_function\":\"legacy\",\"routing_required\":false}");
        assertThat(Strings.toString(RoutingCalcResponse.batch(
                        null,
                        PARAMETERS,
                        List.of(new DocShard("1", null, 2)),
                        new int[] {0, 0, 1, 0, 0},
                        5.0,
                        List.of())))
                .isEqualTo(
                        "{\"number_of_shards\":5,\"routing_num_shards\":640,\"routing_factor\":128,\"routing_partition_size\":1,"
                                + "\"routing_function\":\"legacy\",\"routing_required\":false,\"results\":[{\"id\":\"1\",\"routing\":null,\"shard\":2}],"
                                + "\"distribution\":[0,0,1,0,0],\"skew\":5.0,\"warnings\":[]}");
    }

    private static <T extends Writeable> T roundTrip(T value, Writeable.Reader<T> reader) throws IOException {
        try (BytesStreamOutput out = new BytesStreamOutput()) {
            value.writeTo(out);
            try (StreamInput in = out.bytes().streamInput()) {
                T read = reader.read(in);
                assertThat(in.available()).as("all bytes consumed").isZero();
                return read;
            }
        }
    }
}
