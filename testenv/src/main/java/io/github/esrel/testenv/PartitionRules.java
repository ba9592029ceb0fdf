package io.github.esrel.testenv;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The pure part of {@link NetworkPartitions}: which links between nodes a partition cuts, and the iptables rules
 * that cut them. Node {@code i} runs as its own OS user (uid {@code uids[i]}) and listens for transport traffic on
 * {@code transportPorts[i]}; every node binds 127.0.0.1. A link {@code a-b} is cut by two rules in the OUTPUT path:
 * packets of {@code a}'s processes to {@code b}'s transport port, and of {@code b}'s to {@code a}'s. That kills both
 * directions of every connection between them (a connection's opener can no longer send, and the other side's
 * packets reach a closed socket), while HTTP and the nodes' links to others stay open.
 */
final class PartitionRules {

    /** An undirected link between two nodes, lower index first. */
    record Link(int a, int b) implements Comparable<Link> {
        Link {
            if (a == b) {
                throw new IllegalArgumentException("a node has no link to itself: " + a);
            }
            if (a > b) {
                int t = a;
                a = b;
                b = t;
            }
        }

        @Override
        public int compareTo(Link o) {
            return a != o.a ? Integer.compare(a, o.a) : Integer.compare(b, o.b);
        }

        @Override
        public String toString() {
            return a + "-" + b;
        }
    }

    private PartitionRules() {}

    /** The links between {@code node} and every other node of a cluster of {@code size}. */
    static Set<Link> isolate(int size, int node) {
        check(size, List.of(node));
        Set<Link> links = new TreeSet<>();
        for (int other = 0; other < size; other++) {
            if (other != node) {
                links.add(new Link(node, other));
            }
        }
        return links;
    }

    /**
     * The links between {@code side} and the rest of a cluster of {@code size}: two groups that each still see
     * their own members.
     */
    static Set<Link> split(int size, Collection<Integer> side) {
        check(size, side);
        Set<Integer> one = new TreeSet<>(side);
        if (one.isEmpty() || one.size() == size) {
            throw new IllegalArgumentException(
                    "a split needs nodes on both sides: " + one + " of a cluster of " + size);
        }
        Set<Link> links = new TreeSet<>();
        for (int a : one) {
            for (int b = 0; b < size; b++) {
                if (!one.contains(b)) {
                    links.add(new Link(a, b));
                }
            }
        }
        return links;
    }

    /** A non-transitive partition: {@code a} and {@code c} no longer see each other, both still see {@code bridge}. */
    static Set<Link> bridge(int size, int a, int bridge, int c) {
        check(size, List.of(a, bridge, c));
        if (a == bridge || bridge == c || a == c) {
            throw new IllegalArgumentException(
                    "a bridge needs three distinct nodes, got " + a + ", " + bridge + ", " + c);
        }
        Set<Link> links = new TreeSet<>();
        links.add(new Link(a, c));
        return links;
    }

    private static void check(int size, Collection<Integer> nodes) {
        for (int n : nodes) {
            if (n < 0 || n >= size) {
                throw new IndexOutOfBoundsException(
                        "node " + n + " does not exist: the cluster has nodes 0.." + (size - 1));
            }
        }
    }

    /**
     * The arguments of {@code iptables} (after the binary) that append the rules cutting {@code links} to {@code
     * chain}: two per link, in link order.
     */
    static List<List<String>> rules(
            String chain,
            Collection<Link> links,
            List<Integer> uids,
            List<Integer> transportPorts,
            NetworkPartitions.Cut cut) {
        List<List<String>> rules = new ArrayList<>();
        for (Link link : new TreeSet<>(links)) {
            rules.add(rule(chain, uids.get(link.a()), transportPorts.get(link.b()), cut));
            rules.add(rule(chain, uids.get(link.b()), transportPorts.get(link.a()), cut));
        }
        return rules;
    }

    private static List<String> rule(String chain, int uid, int port, NetworkPartitions.Cut cut) {
        List<String> rule = new ArrayList<>(List.of(
                "-A",
                chain,
                "-o",
                "lo",
                "-p",
                "tcp",
                "-d",
                "127.0.0.1",
                "--dport",
                Integer.toString(port),
                "-m",
                "owner",
                "--uid-owner",
                Integer.toString(uid),
                "-j"));
        if (cut == NetworkPartitions.Cut.RESET) {
            rule.addAll(List.of("REJECT", "--reject-with", "tcp-reset"));
        } else {
            rule.add("DROP");
        }
        return rule;
    }
}
