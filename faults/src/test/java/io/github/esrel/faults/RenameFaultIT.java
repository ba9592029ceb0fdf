package io.github.esrel.faults;

import static org.assertj.core.api.Assertions.assertThat;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.search.Hit;
import co.elastic.clients.elasticsearch.core.search.ResponseBody;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.github.esrel.fs.FileTree;
import io.github.esrel.fs.FsException;
import io.github.esrel.fs.RenameListener;
import io.github.esrel.fs.RenameResult;
import io.github.esrel.internal.RestCall;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A directory rename ({@link FileTree#renameDirectory}) of 10,000 files while the node holding the file
 * index's primary fails mid-way: no file is lost or duplicated, the rename completes (or completes when
 * run again), and its tree locks are released or expire.
 */
@EsrelTest
class RenameFaultIT {

    /** The size; {@code -Desrel.faults.files} scales it for a quick local run. */
    private static final int FILES = Integer.getInteger("esrel.faults.files", 10_000);

    private static final int BATCH = 200;

    @Cluster
    static final EsCluster cluster = FaultCluster.build();

    private final ElasticsearchClient es = cluster.client();

    @Test
    void shouldMoveEveryFileExactlyOnceThroughANodeKill() throws Exception {
        scenario(NodeFault.kill(cluster), "fs-kill");
    }

    @Test
    void shouldMoveEveryFileExactlyOnceThroughAFrozenNode() throws Exception {
        scenario(NodeFault.freeze(cluster), "fs-freeze");
    }

    private void scenario(NodeFault fault, String index) throws Exception {
        AtomicLong done = new AtomicLong();
        AtomicLong faultAt = new AtomicLong();
        AtomicLong recoveredAt = new AtomicLong();
        RenameListener progress = new RenameListener() {
            @Override
            public void progress(long moved, long total) {
                done.set(moved);
                long now = System.nanoTime();
                if (faultAt.get() != 0 && now > faultAt.get()) {
                    recoveredAt.compareAndSet(0, now);
                }
            }
        };
        int victim = -1;
        long doneAtFault;
        RenameResult result;
        String stopReason = null;
        Map<String, String[]> files;
        try (TreeLocks locks = TreeLocks.of(b -> b.client(es).index(index).owner("renamer"))) {
            FileTree fs = FileTree.of(
                    b -> b.client(es).index(index).locks(locks).batchSize(BATCH).listener(progress));
            fs.createIndex();
            files = writeFiles(index, "/src");
            cluster.waitForHealth("green", Duration.ofMinutes(5));

            try {
                CompletableFuture<RenameResult> rename =
                        CompletableFuture.supplyAsync(() -> fs.renameDirectory("/src", "/dst"));
                Faults.await("the rename to be a fifth done", 300, () -> rename.isDone() || done.get() >= FILES / 5);
                doneAtFault = done.get();
                victim = Faults.nodeWithMostPrimaries(es, index);
                fault.inject().accept(victim);
                faultAt.set(System.nanoTime());
                try {
                    result = rename.get(300, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException e) {
                    if (!(e.getCause() instanceof FsException fe)) {
                        throw e;
                    }
                    stopReason = fe.getMessage();
                    System.out.println("rename stopped: " + fe.getMessage());
                    result = finish(fs);
                }
                if (!result.done()) {
                    stopReason = result.status() + ": " + result.message();
                    System.out.println("rename ended " + result + "; finishing it");
                    result = finish(fs);
                }
            } finally {
                if (victim >= 0) {
                    fault.heal().accept(victim);
                }
            }
        }
        System.out.println("rename through " + fault.name() + " of node-" + victim + " at " + doneAtFault + " files: "
                + result + (stopReason == null ? "" : "; stopped once: " + stopReason));

        List<String> violations = check(index, files);
        long locksLeft = locksLeft(index);
        if (locksLeft > 0) {
            violations.add(locksLeft + " tree locks neither released nor expired");
        }
        Faults.figure(
                fault.name() + " node-" + victim + " (primary of the file index)",
                "directory rename of " + FILES + " files",
                FILES,
                violations.size(),
                recoveredAt.get() == 0 ? -1 : (recoveredAt.get() - faultAt.get()) / 1_000_000);

        assertThat(doneAtFault).as("the fault came mid-rename").isBetween(1L, FILES - 1L);
        assertThat(result.status()).as(result.toString()).isEqualTo(RenameResult.Status.DONE);
        assertThat(violations)
                .as("files lost, duplicated or not moved; locks left")
                .isEmpty();
    }

    /**
     * What an application does with a rename that stopped: {@code continueRenameDirectory} until it is done, for up
     * to three minutes, as the cluster may still be failing over (a frozen node holds searches until the others drop
     * it) and the stopped rename's locks may have to expire first.
     */
    private static RenameResult finish(FileTree fs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true) {
            try {
                RenameResult r = fs.continueRenameDirectory("/src", "/dst");
                if (r.done() || System.nanoTime() > deadline) {
                    return r;
                }
                System.out.println("continued rename ended " + r + "; again");
            } catch (FsException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.out.println("continued rename stopped: " + e.getMessage() + "; again");
            }
            Thread.sleep(2_000);
        }
    }

    /** Writes the files in FileTree's document layout with one bulk per batch; id -> {path, contents}. */
    private Map<String, String[]> writeFiles(String index, String dir) throws IOException {
        // As plain JSON: the typed mapping answer is spelled differently on the two client lines the suite runs on.
        boolean clientTree = "client"
                .equals(RestCall.get("/" + RestCall.segment(index) + "/_mapping", Map.of())
                        .sendForObject(es)
                        .getJsonObject(index)
                        .getJsonObject("mappings")
                        .getJsonObject("_meta")
                        .getString("esrel_fs_tree", null));
        Map<String, String[]> files = new LinkedHashMap<>();
        for (int from = 0; from < FILES; from += 2000) {
            BulkRequest.Builder bulk = new BulkRequest.Builder().refresh(Refresh.True);
            for (int i = from; i < Math.min(FILES, from + 2000); i++) {
                TreePath parent = TreePath.of(dir + "/projects/p" + (i % 10));
                String name = "file-" + i + ".txt";
                Map<String, Object> source = new LinkedHashMap<>();
                source.put("name", name);
                source.put("path", parent.value());
                if (clientTree) {
                    source.put("path.tree", parent.hierarchyTokens());
                }
                source.put("contents", "contents " + i);
                String id = UUID.randomUUID().toString();
                files.put(id, new String[] {parent.child(name).value(), "contents " + i});
                bulk.operations(op -> op.create(c -> c.index(index).id(id).document(source)));
            }
            assertThat(es.bulk(bulk.build()).errors()).as("fixture bulk").isFalse();
        }
        return files;
    }

    /** Every file once, at its new path, with its contents; nothing left below the old path. */
    private List<String> check(String index, Map<String, String[]> files) throws IOException {
        es.indices().refresh(r -> r.index(index));
        List<String> violations = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        Set<String> paths = new HashSet<>();
        ResponseBody<StoredFile> page =
                es.search(s -> s.index(index).size(5000).scroll(t -> t.time("2m")), StoredFile.class);
        String scroll = page.scrollId();
        try {
            while (!page.hits().hits().isEmpty()) {
                assertThat(page.shards().failed().intValue())
                        .as("shard failures of the check's scroll")
                        .isZero();
                for (Hit<StoredFile> h : page.hits().hits()) {
                    seen.merge(h.id(), 1, Integer::sum);
                    String path = TreePath.of(h.source().path())
                            .child(h.source().name())
                            .value();
                    String[] want = files.get(h.id());
                    if (!paths.add(path)) {
                        violations.add("two files at " + path);
                    }
                    if (want == null) {
                        violations.add("a file nobody wrote: " + h.id() + " at " + path);
                    } else if (!path.equals(TreePath.of(want[0])
                                    .rebase(TreePath.of("/src"), TreePath.of("/dst"))
                                    .value())
                            || !want[1].equals(h.source().contents())) {
                        violations.add(
                                h.id() + " is " + path + " [" + h.source().contents() + "], was " + want[0]);
                    }
                }
                String id = scroll;
                page = es.scroll(s -> s.scrollId(id).scroll(t -> t.time("2m")), StoredFile.class);
                scroll = page.scrollId();
            }
        } finally {
            String id = scroll;
            es.clearScroll(c -> c.scrollId(id));
        }
        files.keySet().stream()
                .filter(id -> !seen.containsKey(id))
                .forEach(id -> violations.add("lost: " + files.get(id)[0]));
        seen.forEach((id, n) -> {
            if (n > 1) {
                violations.add(id + " stored " + n + " times");
            }
        });
        return violations;
    }

    /** A file document as {@link #writeFiles} stores it; the fields the check does not read are ignored. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    record StoredFile(String name, String path, String contents) {}

    /** Locks left in the namespace, waiting up to a lease (60 s) for the ones whose release failed to expire. */
    private long locksLeft(String index) throws InterruptedException {
        try (TreeLocks observer = TreeLocks.of(b -> b.client(es).index(index).owner("observer"))) {
            long deadline =
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(TreeLocks.Builder.DEFAULT_TTL.toSeconds() + 10);
            while (true) {
                int left = observer.list().size();
                if (left == 0 || System.nanoTime() > deadline) {
                    return left;
                }
                Thread.sleep(500);
            }
        }
    }
}
