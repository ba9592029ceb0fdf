package io.github.esrel.testenv;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntPredicate;
import java.util.random.RandomGenerator;

/**
 * Hands out loopback ports for nodes. They come from below the Linux ephemeral range (which starts
 * at 32768): outgoing connections take their local ports from that range, and a node configured on
 * such a port can find it taken at bind time. Each port is checked free by binding it, and never
 * handed out twice by this JVM until released; another process can still take it before the node
 * binds, which the caller handles by retrying with new ports.
 */
final class PortAllocator {

    static final PortAllocator DEFAULT =
            new PortAllocator(10_000, 32_768, PortAllocator::canBind, RandomGenerator.getDefault());

    private static final int ATTEMPTS_PER_PORT = 200;

    private final int min;
    private final int maxExclusive;
    private final IntPredicate isFree;
    private final RandomGenerator random;
    private final Set<Integer> handedOut = new HashSet<>();

    PortAllocator(int min, int maxExclusive, IntPredicate isFree, RandomGenerator random) {
        if (min < 1 || maxExclusive <= min || maxExclusive > 65_536) {
            throw new IllegalArgumentException("bad port range [" + min + ", " + maxExclusive + ")");
        }
        this.min = min;
        this.maxExclusive = maxExclusive;
        this.isFree = isFree;
        this.random = random;
    }

    /** Returns a free port not handed out before (unless released). */
    synchronized int next() {
        for (int attempt = 0; attempt < ATTEMPTS_PER_PORT; attempt++) {
            int port = random.nextInt(min, maxExclusive);
            if (!handedOut.contains(port) && isFree.test(port)) {
                handedOut.add(port);
                return port;
            }
        }
        throw new EsClusterException("found no free loopback port in ["
                + min
                + ", "
                + maxExclusive
                + ") after "
                + ATTEMPTS_PER_PORT
                + " attempts; are that many servers running?");
    }

    synchronized void release(int port) {
        handedOut.remove(port);
    }

    static boolean canBind(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            // Same as Elasticsearch's own default, so the check agrees with what the node will do.
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
