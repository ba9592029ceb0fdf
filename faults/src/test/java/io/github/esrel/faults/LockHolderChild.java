package io.github.esrel.faults;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.transport.ElasticsearchTransport;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.LockRequest;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLockListener;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.testenv.Clients;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A lock holder in its own JVM, for {@link ChildJvm}: takes an exclusive tree lock and writes the two
 * documents it protects, then does what it is told, the way a process that was frozen and thawed carries
 * on as if it still held the lock.
 *
 * <p>Arguments: node URIs (comma-separated), backend ({@code PLUGIN} or {@code DOCUMENTS}), index (the
 * lock namespace and the data), lock path, lease in ms. Lines printed: {@code HELD <token>}, then
 * {@code WROTE <seq_no> <primary_term>} (the ledger document's, for the conditional writes later). On
 * {@code WRITE}: four writes under the old token, each answered by {@code ATTEMPT <what> <status>
 * <error type>}, then {@code ATTEMPTS}. On {@code STATE}: {@code STATE <isHeld> <lost reason or -> },
 * {@code CLOSE <exception or ok>}, and the child exits.
 *
 * <p>The {@code report} document is fenced by the token (external versions); the {@code ledger} document
 * by the sequence number this holder read ({@code if_seq_no}), the fallback's fencing for writes under
 * locks whose tokens only order one path.
 */
public final class LockHolderChild {

    static final String REPORT = "report";
    static final String LEDGER = "ledger";

    private LockHolderChild() {}

    public static void main(String[] args) throws Exception {
        ElasticsearchClient es = Clients.connect(
                Arrays.stream(args[0].split(",")).map(URI::create).toList());
        TreeLocks.Backend backend = TreeLocks.Backend.valueOf(args[1]);
        String index = args[2];
        String path = args[3];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[4]));
        AtomicReference<String> lost = new AtomicReference<>();
        CountDownLatch lostLatch = new CountDownLatch(1);
        ElasticsearchTransport transport = es._transport();
        try (transport;
                TreeLocks locks = TreeLocks.of(b -> b.client(es)
                        .index(index)
                        .backend(backend)
                        .owner("stale-holder")
                        .listener(new TreeLockListener() {
                            @Override
                            public void onLost(TreeLock lock, String reason) {
                                lost.set(reason);
                                lostLatch.countDown();
                            }
                        }))) {
            TreeLock lock = locks.acquire(LockRequest.of(
                            r -> r.path(path).mode(LockMode.EXCLUSIVE).ttl(ttl).maxWait(Duration.ofSeconds(30))))
                    .orThrow();
            long token = lock.token();
            say("HELD " + token);
            es.index(i -> i.index(index)
                    .id(REPORT)
                    .version(token)
                    .versionType(VersionType.External)
                    .document(Map.of("writer", "stale", "step", 0)));
            var ledger = es.index(i -> i.index(index).id(LEDGER).document(Map.of("writer", "stale", "step", 0)));
            long seqNo = ledger.seqNo();
            long term = ledger.primaryTerm();
            say("WROTE " + seqNo + " " + term);

            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command = in.readLine(); command != null; command = in.readLine()) {
                switch (command) {
                    case "WRITE" -> {
                        Map<String, Object> late = Map.of("writer", "stale", "step", 1);
                        attempt(
                                "index-report-external",
                                () -> es.index(i -> i.index(index)
                                        .id(REPORT)
                                        .version(token)
                                        .versionType(VersionType.External)
                                        .document(late)));
                        attempt(
                                "delete-report-external",
                                () -> es.delete(d ->
                                        d.index(index).id(REPORT).version(token).versionType(VersionType.External)));
                        attempt(
                                "index-ledger-if-seq-no",
                                () -> es.index(i -> i.index(index)
                                        .id(LEDGER)
                                        .ifSeqNo(seqNo)
                                        .ifPrimaryTerm(term)
                                        .document(late)));
                        attempt(
                                "delete-ledger-if-seq-no",
                                () -> es.delete(d ->
                                        d.index(index).id(LEDGER).ifSeqNo(seqNo).ifPrimaryTerm(term)));
                        say("ATTEMPTS");
                    }
                    case "STATE" -> {
                        // The renewal thread, overdue after the freeze, asks the server and hears the lease is gone.
                        lostLatch.await(30, TimeUnit.SECONDS);
                        say("STATE " + lock.isHeld() + " "
                                + (lost.get() == null ? "-" : lost.get().replace('\n', ' ')));
                        String closed;
                        try {
                            lock.close();
                            closed = "ok";
                        } catch (RuntimeException e) {
                            closed = e.getClass().getSimpleName();
                        }
                        say("CLOSE " + closed);
                        return;
                    }
                    default -> say("UNKNOWN " + command);
                }
            }
        }
    }

    private interface Write {
        Object run() throws Exception;
    }

    private static void attempt(String what, Write write) {
        try {
            write.run();
            say("ATTEMPT " + what + " 200 -");
        } catch (ElasticsearchException e) {
            say("ATTEMPT " + what + " " + e.status() + " " + e.error().type());
        } catch (Exception e) {
            say("ATTEMPT " + what + " 0 " + e.getClass().getSimpleName());
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
