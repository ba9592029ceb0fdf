package io.github.esrel.testenv;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Network partitions between the nodes of a {@link EsCluster.Builder#partitionable() partitionable} cluster, from
 * {@link EsCluster#partitions()}: isolate a node, split the cluster into two groups, a non-transitive bridge, heal.
 *
 * <p>Only the transport traffic between nodes is cut; every node's HTTP stays reachable, so a test can ask each side
 * what it sees (a node cut off from the master answers {@code master_not_discovered_exception}, or serves reads from
 * its own copies). Each node of such a cluster runs as its own OS user ({@code esrel-n0}, {@code esrel-n1}, …), and a
 * cut link {@code a-b} is two iptables rules in a chain of this cluster ({@code ESREL-PART-<pid>-<n>}, jumped to from
 * OUTPUT): packets of {@code a}'s user to {@code b}'s transport port, and of {@code b}'s user to {@code a}'s. Both
 * directions of every connection between the two die that way, and new ones cannot be made.
 *
 * <p>A cut link behaves as {@link #cut(Cut)} says: {@link Cut#RESET} (the default) answers each packet with a TCP
 * reset, so connections fail at once, as they do when a firewall rejects or a peer's host is up but unreachable;
 * {@link Cut#DROP} drops packets silently, as a pulled cable or a black-holing switch does, and the nodes notice only
 * through their fault detection's timeouts and TCP's retransmissions (measured here: a majority re-elected after 95 s
 * with Elasticsearch's default detection).
 *
 * <p>The rules use each node's transport port at the moment of the call: a node started again on other ports (its
 * ports taken meanwhile) escapes a partition made before; make partitions after restarts. Every rule is removed by
 * {@link #heal()}, when the cluster is closed or let go of by a test class (a shared cluster is healed before the
 * next class gets it), and by a shutdown hook when the JVM exits; a JVM killed before its hook runs leaves its chain,
 * which the next partitionable cluster on the machine removes. Thread-safe.
 */
public final class NetworkPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(NetworkPartitions.class);
    private static final AtomicInteger CHAINS = new AtomicInteger();
    private static final Set<NetworkPartitions> OPEN = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> OPEN.forEach(NetworkPartitions::close), "esrel-partition-healer"));
    }

    /** How a cut link treats the packets it stops. */
    public enum Cut {
        /** Each packet is answered with a TCP reset: connections fail at once (a rejecting firewall). */
        RESET,
        /** Packets are dropped silently: connections hang until timeouts notice (a black hole). */
        DROP
    }

    private final String clusterName;
    private final String chain;
    private final List<Integer> uids;
    private final Supplier<List<Integer>> transportPorts;
    private final Set<PartitionRules.Link> cut = new TreeSet<>();
    private Cut mode = Cut.RESET;
    private boolean closed;

    private NetworkPartitions(
            String clusterName, String chain, List<Integer> uids, Supplier<List<Integer>> transportPorts) {
        this.clusterName = clusterName;
        this.chain = chain;
        this.uids = List.copyOf(uids);
        this.transportPorts = transportPorts;
    }

    /**
     * Makes this JVM's chain for the cluster of {@code uids.size()} nodes.
     *
     * @throws UnsupportedOperationException saying why, where this JVM cannot cut links (not root, no iptables, no
     *     owner match)
     */
    static NetworkPartitions create(String clusterName, List<Integer> uids, Supplier<List<Integer>> transportPorts) {
        String chain = Iptables.PREFIX + ProcessHandle.current().pid() + "-" + CHAINS.incrementAndGet();
        Iptables.create(chain).ifPresent(reason -> {
            throw new UnsupportedOperationException(reason);
        });
        NetworkPartitions p = new NetworkPartitions(clusterName, chain, uids, transportPorts);
        OPEN.add(p);
        LOG.info("Network partitions of {} go through iptables chain {}", clusterName, chain);
        return p;
    }

    /**
     * Sets how links cut from now on behave; links cut already keep theirs until {@link #heal()}. Default {@link
     * Cut#RESET}.
     *
     * @param mode reset or drop
     * @return this
     */
    public synchronized NetworkPartitions cut(Cut mode) {
        this.mode = requireNonNull(mode, "mode cannot be null");
        return this;
    }

    /**
     * Cuts node {@code node} off from every other node; its HTTP stays reachable.
     *
     * @param node the node index
     * @throws IndexOutOfBoundsException if there is no such node
     * @throws EsClusterException if iptables refuses a rule
     */
    public void isolate(int node) {
        apply(PartitionRules.isolate(uids.size(), node));
    }

    /**
     * Splits the cluster in two: the nodes of {@code side} keep seeing each other, the others each other, and no
     * node sees one of the other group.
     *
     * @param side the nodes of one group (either: the other group is the rest)
     * @throws IllegalArgumentException if a group would be empty
     * @throws IndexOutOfBoundsException if there is no such node
     * @throws EsClusterException if iptables refuses a rule
     */
    public void split(Collection<Integer> side) {
        apply(PartitionRules.split(uids.size(), requireNonNull(side, "side cannot be null")));
    }

    /**
     * A non-transitive partition: {@code a} and {@code c} no longer see each other, while {@code bridge} sees both
     * (and the nodes not named see everyone).
     *
     * @param a one end
     * @param bridge the node both ends still see
     * @param c the other end
     * @throws IllegalArgumentException if the nodes are not distinct
     * @throws IndexOutOfBoundsException if there is no such node
     * @throws EsClusterException if iptables refuses a rule
     */
    public void bridge(int a, int bridge, int c) {
        apply(PartitionRules.bridge(uids.size(), a, bridge, c));
    }

    /**
     * Cuts the one link between nodes {@code a} and {@code b}.
     *
     * @param a one node
     * @param b another node
     * @throws IllegalArgumentException if they are the same node
     * @throws IndexOutOfBoundsException if there is no such node
     * @throws EsClusterException if iptables refuses a rule
     */
    public void cutLink(int a, int b) {
        if (a < 0 || b < 0 || a >= uids.size() || b >= uids.size()) {
            throw new IndexOutOfBoundsException(
                    "nodes " + a + " and " + b + " do not both exist: the cluster has nodes 0.." + (uids.size() - 1));
        }
        apply(Set.of(new PartitionRules.Link(a, b)));
    }

    /**
     * Removes every cut: all nodes see each other again. Cluster health is not awaited: use {@link
     * EsCluster#waitForHealth}. Does nothing when nothing is cut.
     *
     * @throws EsClusterException if iptables cannot flush the chain
     */
    public synchronized void heal() {
        if (closed || cut.isEmpty()) {
            return;
        }
        Iptables.flush(chain);
        LOG.info("Healed the partition of {} (links {} were cut)", clusterName, cut);
        cut.clear();
    }

    /**
     * The links cut now, as {@code "a-b"} with the lower node first, in order.
     *
     * @return the cut links; empty when healed
     */
    public synchronized List<String> cutLinks() {
        return cut.stream().map(PartitionRules.Link::toString).toList();
    }

    /**
     * The iptables chain this cluster's rules live in.
     *
     * @return the chain name, {@code ESREL-PART-<pid>-<n>}
     */
    public String chain() {
        return chain;
    }

    private synchronized void apply(Set<PartitionRules.Link> links) {
        if (closed) {
            throw new IllegalStateException("the cluster of these partitions is closed");
        }
        Set<PartitionRules.Link> fresh = new TreeSet<>(links);
        fresh.removeAll(cut);
        List<List<String>> rules = PartitionRules.rules(chain, fresh, uids, transportPorts.get(), mode);
        for (List<String> rule : rules) {
            Iptables.apply(rule);
        }
        cut.addAll(fresh);
        LOG.info(
                "Cut links {} of {} ({}); cut now: {}",
                fresh.stream().map(Object::toString).collect(Collectors.joining(", ")),
                clusterName,
                mode,
                cut);
    }

    /** Removes the rules and the chain; idempotent, never throws. */
    synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        cut.clear();
        Iptables.remove(chain);
        OPEN.remove(this);
    }
}
