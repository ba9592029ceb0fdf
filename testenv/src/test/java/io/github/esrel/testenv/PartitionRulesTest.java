package io.github.esrel.testenv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.esrel.testenv.PartitionRules.Link;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PartitionRulesTest {

    private static final List<Integer> UIDS = List.of(1001, 1002, 1003);
    private static final List<Integer> PORTS = List.of(9301, 9302, 9303);

    @Test
    void isolatingANodeCutsItsLinkToEveryOtherNodeOnly() {
        assertThat(PartitionRules.isolate(3, 1)).containsExactly(new Link(0, 1), new Link(1, 2));
        assertThat(PartitionRules.isolate(5, 0)).hasSize(4).allMatch(l -> l.a() == 0);
    }

    @Test
    void aSplitCutsEveryLinkAcrossTheGroupsAndNoneWithinOne() {
        Set<Link> links = PartitionRules.split(5, List.of(3, 0));

        assertThat(links)
                .containsExactly(
                        new Link(0, 1), new Link(0, 2), new Link(0, 4), new Link(1, 3), new Link(2, 3), new Link(3, 4));
        assertThat(links).doesNotContain(new Link(0, 3), new Link(1, 2), new Link(1, 4), new Link(2, 4));
        assertThat(PartitionRules.split(5, List.of(1, 2, 4))).isEqualTo(links); // either side names the split
    }

    @Test
    void aSplitNeedsNodesOnBothSides() {
        assertThatThrownBy(() -> PartitionRules.split(3, List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PartitionRules.split(3, List.of(0, 1, 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("both sides");
        assertThatThrownBy(() -> PartitionRules.split(3, List.of(3))).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aBridgeCutsOnlyTheLinkBetweenItsEnds() {
        assertThat(PartitionRules.bridge(3, 2, 0, 1)).containsExactly(new Link(1, 2));
        assertThatThrownBy(() -> PartitionRules.bridge(3, 0, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PartitionRules.bridge(3, 0, 1, 5)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void aLinkIsUndirected() {
        assertThat(new Link(2, 0)).isEqualTo(new Link(0, 2)).hasToString("0-2");
        assertThatThrownBy(() -> new Link(1, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void eachCutLinkBlocksBothNodesFromTheOthersTransportPortByOwner() {
        List<List<String>> rules = PartitionRules.rules(
                "ESREL-PART-7-1", Set.of(new Link(0, 2)), UIDS, PORTS, NetworkPartitions.Cut.RESET);

        assertThat(rules)
                .containsExactly(
                        List.of(
                                "-A",
                                "ESREL-PART-7-1",
                                "-o",
                                "lo",
                                "-p",
                                "tcp",
                                "-d",
                                "127.0.0.1",
                                "--dport",
                                "9303",
                                "-m",
                                "owner",
                                "--uid-owner",
                                "1001",
                                "-j",
                                "REJECT",
                                "--reject-with",
                                "tcp-reset"),
                        List.of(
                                "-A",
                                "ESREL-PART-7-1",
                                "-o",
                                "lo",
                                "-p",
                                "tcp",
                                "-d",
                                "127.0.0.1",
                                "--dport",
                                "9301",
                                "-m",
                                "owner",
                                "--uid-owner",
                                "1003",
                                "-j",
                                "REJECT",
                                "--reject-with",
                                "tcp-reset"));
    }

    @Test
    void aDropCutDropsInsteadOfResetting() {
        List<List<String>> rules =
                PartitionRules.rules("C", PartitionRules.isolate(3, 0), UIDS, PORTS, NetworkPartitions.Cut.DROP);

        assertThat(rules).hasSize(4).allMatch(r -> r.get(r.size() - 1).equals("DROP") && !r.contains("REJECT"));
        // Node 0's user to the others' ports, and the others' users to node 0's port; nothing between 1 and 2.
        assertThat(rules.stream().map(r -> r.get(13) + ">" + r.get(9)).toList())
                .containsExactly("1001>9302", "1002>9301", "1001>9303", "1003>9301");
    }

    @Test
    void staleChainsAreThoseOfJvmsThatAreGone() {
        String listing = String.join(
                "\n",
                "-P OUTPUT ACCEPT",
                "-N DOCKER",
                "-N ESREL-PART-100-1",
                "-N ESREL-PART-200-3",
                "-N ESREL-PART-x-1",
                "-A OUTPUT -j ESREL-PART-100-1");

        assertThat(Iptables.staleChains(listing, pid -> pid == 200)).containsExactly("ESREL-PART-100-1");
    }
}
