package io.github.esrel.testenv;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The iptables chains of {@link NetworkPartitions}: one per partitionable cluster, named {@code
 * ESREL-PART-<pid>-<n>} after this JVM, jumped to from the top of OUTPUT. Chains of JVMs that are gone (killed
 * before their shutdown hook ran) are removed when a chain is made. Runs {@code iptables -w} (waits for the xtables
 * lock rather than failing when another process changes rules at the same moment).
 */
final class Iptables {

    private static final Logger LOG = LoggerFactory.getLogger(Iptables.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final String PREFIX = "ESREL-PART-";
    private static final Pattern OWN_CHAIN = Pattern.compile("^-N (" + PREFIX + "(\\d+)-\\d+)$", Pattern.MULTILINE);

    private Iptables() {}

    /** Why this JVM cannot cut links with owner rules, or empty if it can: checked by making {@code chain}. */
    static Optional<String> create(String chain) {
        if (!NodeUser.isRoot()) {
            return Optional.of("network partitions need root (iptables rules), and this JVM runs as "
                    + System.getProperty("user.name"));
        }
        Commands.Result version;
        try {
            version = run(List.of("--version"));
        } catch (EsClusterException e) {
            return Optional.of("network partitions need iptables, which cannot be run: " + e.getMessage());
        }
        if (!version.ok()) {
            return Optional.of("iptables --version exited " + version.exitCode() + ": "
                    + version.output().strip());
        }
        removeStale();
        Commands.Result made = run(List.of("-N", chain));
        if (!made.ok()) {
            return Optional.of(
                    "iptables -N " + chain + " failed: " + made.output().strip());
        }
        // A rule with the owner match, never matching (uid 0 to port 1 is nothing testenv sends), proves the match.
        Commands.Result owner = run(List.of(
                "-A",
                chain,
                "-o",
                "lo",
                "-p",
                "tcp",
                "--dport",
                "1",
                "-m",
                "owner",
                "--uid-owner",
                "0",
                "-j",
                "REJECT",
                "--reject-with",
                "tcp-reset"));
        Commands.Result jump = owner.ok() ? run(List.of("-I", "OUTPUT", "1", "-j", chain)) : owner;
        if (!owner.ok() || !jump.ok()) {
            remove(chain);
            return Optional.of("iptables cannot add the owner-match rules partitions need (is the xt_owner module"
                    + " available?): " + (owner.ok() ? jump : owner).output().strip());
        }
        flush(chain);
        return Optional.empty();
    }

    /** Applies one rule (the arguments after {@code iptables}). */
    static void apply(List<String> rule) {
        Commands.Result r = run(rule);
        if (!r.ok()) {
            throw new EsClusterException("iptables " + String.join(" ", rule) + " exited " + r.exitCode() + ": "
                    + r.output().strip());
        }
    }

    /** Deletes every rule of {@code chain}. */
    static void flush(String chain) {
        apply(List.of("-F", chain));
    }

    /** Removes the jump to {@code chain} and the chain; never throws, logs what it could not do. */
    static void remove(String chain) {
        try {
            // -D deletes one matching jump per call: repeat until none is left.
            for (int i = 0; i < 10 && run(List.of("-D", "OUTPUT", "-j", chain)).ok(); i++) {
                // deleted one
            }
            run(List.of("-F", chain));
            Commands.Result deleted = run(List.of("-X", chain));
            if (!deleted.ok() && exists(chain)) {
                LOG.warn(
                        "Could not delete iptables chain {}: {}",
                        chain,
                        deleted.output().strip());
            }
        } catch (RuntimeException e) {
            LOG.warn("Could not remove iptables chain {}: {}", chain, e.toString());
        }
    }

    private static boolean exists(String chain) {
        return run(List.of("-S", chain)).ok();
    }

    /** The partition chains of JVMs that no longer run. */
    static List<String> staleChains(String listing, java.util.function.LongPredicate alive) {
        List<String> stale = new ArrayList<>();
        Matcher m = OWN_CHAIN.matcher(listing);
        while (m.find()) {
            if (!alive.test(Long.parseLong(m.group(2)))) {
                stale.add(m.group(1));
            }
        }
        return stale;
    }

    private static void removeStale() {
        Commands.Result listing = run(List.of("-S"));
        if (!listing.ok()) {
            return;
        }
        for (String chain :
                staleChains(listing.output(), pid -> ProcessHandle.of(pid).isPresent())) {
            LOG.info("Removing iptables chain {} left behind by a JVM that is gone", chain);
            remove(chain);
        }
    }

    private static Commands.Result run(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add("iptables");
        command.add("-w");
        command.addAll(args);
        return Commands.run(command, Map.of(), null, TIMEOUT);
    }
}
