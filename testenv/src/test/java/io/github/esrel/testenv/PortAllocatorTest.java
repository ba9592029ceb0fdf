package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PortAllocatorTest {

    private static final RandomGenerator SEEDED = new SplittableRandom(42);

    @Test
    void shouldHandOutPortsBelowTheEphemeralRange() {
        for (int i = 0; i < 50; i++) {
            assertThat(PortAllocator.DEFAULT.next()).isBetween(10_000, 32_767);
        }
    }

    @Test
    void shouldNeverHandOutAPortTwiceUntilReleased() {
        PortAllocator ports = new PortAllocator(20_000, 20_010, p -> true, SEEDED);
        Set<Integer> seen = new HashSet<>();
        IntStream.range(0, 10).forEach(i -> assertThat(seen.add(ports.next())).isTrue());

        assertThatThrownBy(ports::next).isInstanceOf(EsClusterException.class).hasMessageContaining("[20000, 20010)");

        ports.release(20_004);
        assertThat(ports.next()).isEqualTo(20_004);
    }

    @Test
    void shouldSkipPortsThatAreNotFree() {
        PortAllocator ports = new PortAllocator(20_000, 20_004, p -> p == 20_002, SEEDED);

        assertThat(ports.next()).isEqualTo(20_002);
    }

    @Test
    void shouldSeeABoundPortAsTaken() throws IOException {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));

            assertThat(PortAllocator.canBind(socket.getLocalPort())).isFalse();
        }
    }

    @Test
    void shouldRejectAnEmptyRange() {
        assertThatThrownBy(() -> new PortAllocator(5, 5, p -> true, SEEDED))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
