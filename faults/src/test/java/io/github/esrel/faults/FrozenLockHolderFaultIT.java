package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.GetResponse;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A lock holder whose JVM stops for longer than its lease (a long GC pause, a suspended VM) and then
 * carries on as if it still held the lock. Its lease ends on the server while it is frozen; another
 * process takes the lock (with a larger fencing token) and writes. After SIGCONT:
 * <ul>
 *   <li>every write the stale holder attempts with its old token is refused: writes fenced by the token
 *       as an external version ({@code version_type=external}, {@link TreeLock}'s fencing) and writes
 *       conditional on the {@code _seq_no}/{@code _primary_term} it read (the fallback's fencing in
 *       {@code FileTree}) both answer 409;</li>
 *   <li>none of the new holder's documents changes (source, version);</li>
 *   <li>the stale handle reports the loss: {@link TreeLock#isHeld()} is false, the listener hears
 *       {@code onLost}, and {@code close()} throws {@code LeaseLostException}.</li>
 * </ul>
 * Fencing protects the documents a newer holder wrote: a document nobody wrote since the stale holder's
 * token is not fenced by anything, which is why the stale holder here only writes the documents both
 * holders protect. Run with the plugin's locks and with the lock-document fallback, on a 3-node cluster
 * with one replica per shard.
 */
@EsrelTest
class FrozenLockHolderFaultIT {

    private static final Duration LEASE = Duration.ofSeconds(5);
    private static final Duration PATIENCE = Duration.ofSeconds(90);
    private static final String PATH = "/reports";

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    @ParameterizedTest
    @EnumSource(
            value = TreeLocks.Backend.class,
            names = {"PLUGIN", "DOCUMENTS"})
    void shouldRefuseEveryWriteOfAHolderFrozenPastItsLease(TreeLocks.Backend backend) throws Exception {
        ElasticsearchClient es = cluster.client();
        String index = "frozen-holder-" + backend.name().toLowerCase(Locale.ROOT);
        es.indices()
                .create(c -> c.index(index).settings(s -> s.numberOfShards("1").numberOfReplicas("1")));
        cluster.waitForHealth("green", PATIENCE);
        String nodes = cluster.httpUris().stream().map(URI::toString).collect(Collectors.joining(","));

        try (ChildJvm stale = ChildJvm.start(
                        "lock-holder-" + backend,
                        LockHolderChild.class,
                        List.of(nodes, backend.name(), index, PATH, Long.toString(LEASE.toMillis())));
                TreeLocks locks = TreeLocks.of(
                        b -> b.client(es).index(index).backend(backend).owner("new-holder"))) {
            long staleToken = Long.parseLong(stale.expect("HELD", PATIENCE));
            stale.expect("WROTE", PATIENCE);

            stale.freeze();
            long frozenAt = System.nanoTime();
            assertThat(stale.state()).as("the child is stopped").isEqualTo("T");

            // Granted only once the stale holder's lease has ended: it is frozen, so it cannot release.
            TreeLock lock = locks.acquire(LockRequest.of(
                            r -> r.path(PATH).mode(LockMode.EXCLUSIVE).maxWait(PATIENCE)))
                    .orThrow();
            long takeoverMs = (System.nanoTime() - frozenAt) / 1_000_000;
            assertThat(lock.token()).as("the new holder's token").isGreaterThan(staleToken);
            es.index(i -> i.index(index)
                    .id(LockHolderChild.REPORT)
                    .version(lock.token())
                    .versionType(VersionType.External)
                    .document(Map.of("writer", "new", "step", 0)));
            GetResponse<ObjectNode> ledger = es.get(g -> g.index(index).id(LockHolderChild.LEDGER), ObjectNode.class);
            es.index(i -> i.index(index)
                    .id(LockHolderChild.LEDGER)
                    .ifSeqNo(ledger.seqNo())
                    .ifPrimaryTerm(ledger.primaryTerm())
                    .document(Map.of("writer", "new", "step", 0)));
            List<String> before = snapshot(es, index);

            stale.thaw();
            stale.send("WRITE");
            List<String> attempts = new ArrayList<>();
            for (String line = stale.read(PATIENCE); !line.equals("ATTEMPTS"); line = stale.read(PATIENCE)) {
                attempts.add(line);
            }
            List<String> after = snapshot(es, index);
            stale.send("STATE");
            String state = stale.expect("STATE", PATIENCE);
            String closed = stale.expect("CLOSE", PATIENCE);
            assertThat(stale.waitFor(PATIENCE)).as("the child exits").isTrue();
            boolean released = lock.release();

            long accepted = attempts.stream()
                    .filter(a -> !a.split(" ")[2].equals("409"))
                    .count();
            long changed = before.equals(after) ? 0 : 1;
            long unreported = (state.startsWith("false ") && !state.endsWith(" -") ? 0 : 1)
                    + (closed.equals("LeaseLostException") ? 0 : 1);
            Figures.row(
                    "client JVM frozen past its lease",
                    "tree lock fencing (" + backend + ")",
                    attempts.size(),
                    accepted + changed + unreported,
                    takeoverMs,
                    "ms = freeze to the new holder's grant, lease " + LEASE.toMillis() + " ms; " + attempts);

            assertThat(attempts)
                    .as("four late writes")
                    .hasSize(4)
                    .allSatisfy(a -> assertThat(a)
                            .as("refused as a conflict")
                            .endsWith(" 409 version_conflict_engine_exception"));
            assertThat(after).as("the new holder's documents").isEqualTo(before);
            assertThat(before).allSatisfy(doc -> assertThat(doc).contains("\"writer\":\"new\""));
            assertThat(state)
                    .as("isHeld and the lost reason")
                    .startsWith("false ")
                    .doesNotEndWith(" -");
            assertThat(closed).isEqualTo("LeaseLostException");
            assertThat(released).as("the new holder held its lock throughout").isTrue();
        }
    }

    /** Source, version and seq_no of the two protected documents. */
    private static List<String> snapshot(ElasticsearchClient es, String index) throws IOException {
        List<String> docs = new ArrayList<>();
        for (String id : List.of(LockHolderChild.REPORT, LockHolderChild.LEDGER)) {
            GetResponse<ObjectNode> got = es.get(g -> g.index(index).id(id), ObjectNode.class);
            docs.add(id + " v" + got.version() + " s" + got.seqNo() + " " + got.source());
        }
        return docs;
    }
}
