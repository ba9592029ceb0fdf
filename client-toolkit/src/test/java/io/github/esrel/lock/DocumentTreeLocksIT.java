package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.GetResponse;
import co.elastic.clients.json.JsonData;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import jakarta.json.JsonObject;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract against the lock-document fallback, on a node <em>without</em> the esrel plugin (and, as
 * every test node, without painless and the reindex module): it needs nothing but document APIs.
 * Plus what only the fallback has: document locks, the lock index, clock-judged leases.
 */
@EsrelTest
class DocumentTreeLocksIT extends AbstractTreeLocksContractIT {

    @Cluster
    static final EsCluster cluster = EsCluster.builder().plugin(false).shared().build();

    @Override
    protected ElasticsearchClient client() {
        return cluster.client();
    }

    /**
     * 100 per thread: each of the fallback's acquisitions is a conditional write per path level (and their rollback
     * on conflict), so 8 x 100 already race thousands of conditional writes on the tree's documents; 200 took 22-48 s
     * of every CI pass.
     */
    @Override
    protected int contentionOpsPerThread() {
        return 100;
    }

    @Override
    protected TreeLocks.Backend backend() {
        return TreeLocks.Backend.DOCUMENTS;
    }

    /** Drops the lock's holder from its path's lock document, as a taker-over after expiry would. */
    @Override
    protected void revoke(TreeLock lock) throws IOException {
        // The lock's renewals rewrite the document too: read and rewrite it until no renewal came in between.
        for (int attempt = 1; ; attempt++) {
            try {
                revokeOnce(lock);
                return;
            } catch (ElasticsearchException e) {
                if (e.status() != 409 || attempt == 20) {
                    throw e;
                }
            }
        }
    }

    private void revokeOnce(TreeLock lock) throws IOException {
        String id = LockDocs.docId(lock.index(), LockDocs.KIND_PATH, lock.path().value());
        GetResponse<JsonData> doc =
                client().get(g -> g.index(TreeLocks.Builder.DEFAULT_LOCK_INDEX).id(id), JsonData.class);
        JsonObject src = doc.source().toJson(client()._jsonpMapper()).asJsonObject();
        Map<String, Object> rewritten = new LinkedHashMap<>();
        rewritten.put("ns", src.getString("ns"));
        rewritten.put("kind", src.getString("kind"));
        rewritten.put("key", src.getString("key"));
        rewritten.put(
                "tree",
                src.getJsonArray("tree").getValuesAs(jakarta.json.JsonString.class).stream()
                        .map(jakarta.json.JsonString::getString)
                        .toList());
        rewritten.put("token", src.getJsonNumber("token").longValue());
        rewritten.put("holders", List.of());
        client().index(i -> i.index(TreeLocks.Builder.DEFAULT_LOCK_INDEX)
                .id(id)
                .document(rewritten)
                .ifSeqNo(doc.seqNo())
                .ifPrimaryTerm(doc.primaryTerm()));
    }

    @Test
    void shouldPickTheFallbackOnAClusterWithoutThePlugin() {
        String ns = namespace();
        try (TreeLocks locks = TreeLocks.of(b -> b.client(client()).index(ns))) {
            assertThat(locks).isInstanceOf(DocumentTreeLocks.class);
            assertThat(locks.backend()).isEqualTo(TreeLocks.Backend.DOCUMENTS);
            assertThat(PluginTreeLocks.available(client(), "anything")).isFalse();
            locks.acquire("/x", LockMode.EXCLUSIVE).orThrow().close();
            // Now that the namespace index exists (8.19 answers its GET with a 405, not "no handler found").
            assertThat(PluginTreeLocks.available(client(), ns)).isFalse();
        }
        try (PluginTreeLocks plugin = PluginTreeLocks.of(b -> b.client(client()).index(ns))) {
            assertThatThrownBy(() -> plugin.acquire("/x", LockMode.EXCLUSIVE))
                    .isInstanceOf(TreeLockException.class)
                    .hasMessageContaining("esrel plugin with tree locks is not installed");
        }
    }

    /**
     * The public health probe, without Spring, on a cluster without the plugin: UP (the fallback serves the locks),
     * the node listed as lacking the plugin, the fallback's own lock index and its health once the first lock made it.
     */
    @Test
    void shouldReportTheFallbackAndItsLockIndexThroughThePublicProbe() {
        String lockIndex = "probe-locks-" + System.nanoTime();
        try (DocumentTreeLocks locks =
                DocumentTreeLocks.of(b -> b.client(client()).index(namespace()).lockIndex(lockIndex))) {
            io.github.esrel.health.HealthProbe probe = io.github.esrel.health.HealthProbe.of(
                    b -> b.client(client()).treeLocks(locks));
            io.github.esrel.health.HealthReport before = probe.check();
            assertThat(before.up()).as("%s", before).isTrue();
            assertThat(before.provider()).contains(TreeLocks.Backend.DOCUMENTS);
            assertThat(before.nodesWithoutPlugin()).hasSize(1);
            assertThat(before.details().get("locks").toString())
                    .contains("lockIndex=" + lockIndex)
                    .contains("not created yet");
            locks.acquire("/x", LockMode.EXCLUSIVE).orThrow().close();
            io.github.esrel.health.HealthReport after = probe.check();
            assertThat(after.up()).isTrue();
            assertThat(after.details().get("locks").toString()).containsPattern("lockIndexStatus=(green|yellow)");
        }
    }

    @Test
    void shouldRefuseToBindALockToTheUserRatherThanIgnoreIt() {
        TreeLocks locks = locks(namespace());
        assertThatThrownBy(
                        () -> locks.acquire(LockRequest.of(b -> b.path("/bound").bindToUser(true))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot bind a lock to the user with lock documents")
                .hasMessageContaining("PluginTreeLocks");
        assertThat(locks.list()).isEmpty();
    }

    @Test
    void shouldSayWhatToUseWhenThePluginIsMissing() {
        try (TreeLocks locks = PluginTreeLocks.of(b -> b.client(client()).index(namespace()))) {
            assertThatThrownBy(() -> locks.acquire("/x", LockMode.EXCLUSIVE))
                    .isInstanceOf(TreeLockException.class)
                    .hasMessageContaining("not installed")
                    .hasMessageContaining("DocumentTreeLocks");
        }
    }

    @Test
    void shouldCreateAHiddenLockIndexOnFirstUse() throws IOException {
        String lockIndex = "my-locks-" + System.nanoTime();
        String ns = namespace();
        try (DocumentTreeLocks locks =
                DocumentTreeLocks.of(b -> b.client(client()).index(ns).lockIndex(lockIndex))) {
            assertThat(locks.lockIndex()).isEqualTo(lockIndex);
            assertThat(client().indices().exists(e -> e.index(lockIndex)).value())
                    .isFalse();
            locks.acquire("/a/b", LockMode.SHARED).orThrow().close();
            var settings = client().indices()
                    .getSettings(g -> g.index(lockIndex))
                    .get(lockIndex)
                    .settings()
                    .index();
            assertThat(settings.hidden()).isIn("true", true);
            assertThat(settings.numberOfShards()).isEqualTo("1");
        }
        try (DocumentTreeLocks locks = DocumentTreeLocks.of(b -> b.client(client())
                .index(ns)
                .lockIndex("absent-" + System.nanoTime())
                .createLockIndex(false))) {
            assertThatThrownBy(() -> locks.acquire("/a", LockMode.SHARED))
                    .isInstanceOf(TreeLockException.class)
                    .hasMessageContaining("does not exist");
        }
    }

    @Test
    void shouldLockPathsLongerThanADocumentIdAllows() {
        TreeLocks locks = locks(namespace());
        String longName = "ü".repeat(400); // 800 UTF-8 bytes: more than _id's 512
        TreeLock lock =
                locks.acquire("/long/" + longName + "/file", LockMode.EXCLUSIVE).orThrow();
        assertThat(locks.acquire("/long/" + longName, LockMode.EXCLUSIVE).acquired())
                .isFalse();
        assertThat(locks.list()).extracting(LockInfo::path).containsExactly(lock.path());
        lock.close();
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, "/" + "x".repeat(600)))
                .startsWith("fs:#")
                .hasSize(4 + 64);
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, "/a")).isEqualTo("fs:/a");
        assertThat(LockDocs.docId("fs", LockDocs.KIND_DOC, "/a")).isEqualTo("fs:doc:/a");
    }

    /** A client whose clock is ahead judges the holder's lease over and takes the lock: leases are by clock. */
    @Test
    void shouldJudgeLeasesByTheClockAndReportTheLossToTheOverTakenHolder() {
        String ns = namespace();
        List<String> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
        TreeLocks holder = locks(
                ns,
                b -> b.owner("holder").listener(new TreeLockListener() {
                    @Override
                    public void onLost(TreeLock lock, String reason) {
                        lost.add(reason);
                    }
                }));
        TreeLocks later = locks(ns, b -> b.owner("later").clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(1))));
        TreeLock held = holder.acquire(LockRequest.of(b -> b.path("/skew/file").ttl(Duration.ofSeconds(3))))
                .orThrow();
        TreeLock taken = later.acquire("/skew", LockMode.EXCLUSIVE).orThrow();
        assertThat(taken.token()).isPositive();
        await("the overtaken holder hears it lost its lease", () -> !lost.isEmpty());
        assertThat(held.isHeld()).isFalse();
        assertThat(held.release()).isFalse();
        assertThat(later.list()).extracting(LockInfo::path).containsExactly(TreePath.of("/skew"));
        taken.close();
    }

    // ---- document locks ------------------------------------------------------------------------------

    @Test
    void shouldLockDocumentsAllOrNothing() {
        String ns = namespace();
        DocumentTreeLocks a = (DocumentTreeLocks) locks(ns, b -> b.owner("a"));
        DocumentTreeLocks b = (DocumentTreeLocks) locks(ns, b2 -> b2.owner("b"));

        DocumentLocks mine =
                a.lockDocuments(List.of("1", "2", "3", "2"), Duration.ZERO).orThrow();
        assertThat(mine.ids()).containsExactly("1", "2", "3");
        assertThat(mine.owner()).isEqualTo("a");
        assertThat(mine.isHeld()).isTrue();

        AcquireResult<DocumentLocks> refused = b.lockDocuments(List.of("3", "4"), Duration.ZERO);
        assertThat(refused.acquired()).isFalse();
        assertThat(refused.conflicts()).singleElement().satisfies(c -> {
            assertThat(c.path()).isEqualTo("3");
            assertThat(c.owner()).isEqualTo("a");
            assertThat(c.mode()).isEqualTo(LockMode.EXCLUSIVE);
        });
        // Nothing stayed locked from the refused request.
        b.lockDocuments(List.of("4"), Duration.ZERO).orThrow().close();
        // Document locks do not touch tree locks, nor show in their list.
        a.acquire("/3", LockMode.EXCLUSIVE).orThrow().close();
        assertThat(a.list()).isEmpty();

        assertThat(mine.release()).isTrue();
        assertThat(mine.isHeld()).isFalse();
        DocumentLocks theirs = b.lockDocuments(List.of("3", "4"), Duration.ZERO).orThrow();
        assertThat(a.lockDocuments(List.of("1", "4"), Duration.ZERO).conflicts())
                .extracting(LockConflict::path)
                .containsExactly("4");
        theirs.close();
        assertThatThrownBy(() -> a.lockDocuments(List.of(), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> a.lockDocuments(List.of(" "), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldRenewDocumentLocksAndWaitForThem() throws Exception {
        String ns = namespace();
        // A 3 s lease renewed every second, checked after 4 s: held only if a renewal landed. A 1 s lease left
        // a renewal round (index check, multi-get, bulk) two thirds of a second, which a CPU-bound run outlasted.
        DocumentTreeLocks a = (DocumentTreeLocks) locks(ns, b -> b.owner("a").ttl(Duration.ofSeconds(3)));
        DocumentTreeLocks b = (DocumentTreeLocks) locks(ns, b2 -> b2.owner("b"));
        DocumentLocks held = a.lockDocuments(List.of("x", "y"), Duration.ZERO).orThrow();
        java.time.Instant first = held.expiresAt();
        sleep(Duration.ofSeconds(4));
        assertThat(held.isHeld()).isTrue();
        assertThat(held.expiresAt()).isAfter(first);
        assertThat(b.lockDocuments(List.of("y"), Duration.ZERO).acquired()).isFalse();

        var pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            var waiting = pool.submit(() -> b.lockDocuments(List.of("y", "z"), Duration.ofSeconds(30)));
            sleep(Duration.ofMillis(500));
            held.close();
            DocumentLocks got =
                    waiting.get(60, java.util.concurrent.TimeUnit.SECONDS).orThrow();
            assertThat(got.ids()).containsExactly("y", "z");
            got.close();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldTakeOverDocumentLocksWhoseLeaseEnded() {
        String ns = namespace();
        DocumentTreeLocks a = (DocumentTreeLocks) locks(ns, b -> b.owner("a").ttl(Duration.ofSeconds(5)));
        DocumentTreeLocks ahead = (DocumentTreeLocks) locks(
                ns, b -> b.owner("ahead").clock(Clock.offset(Clock.systemUTC(), Duration.ofHours(1))));
        DocumentLocks held = a.lockDocuments(List.of("d1", "d2"), Duration.ZERO).orThrow();
        DocumentLocks taken = ahead.lockDocuments(List.of("d2"), Duration.ZERO).orThrow();
        await("the old holder finds out on its next renewal", () -> !held.isHeld());
        assertThat(held.release()).isFalse();
        assertThat(taken.release()).isTrue();
    }
}
