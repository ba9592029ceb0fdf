package io.github.esrel.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.IndexRequest;
import io.github.esrel.ReplayingTransport;
import io.github.esrel.lock.AcquireResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.path.TreePath;
import io.github.esrel.testenv.Clients;
import io.github.esrel.testenv.LossyProxy;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The file-system model of seed 000 against a real node, run once per lock provider (plugin and
 * lock-document fallback): subtree search, file and directory renames, concurrent renames, progress.
 */
abstract class AbstractFileTreeIT {

    abstract ElasticsearchClient es();

    abstract TreeLocks.Backend backend();

    /** The node's HTTP address, for a proxy in front of it. */
    abstract URI httpUri();

    String index;
    TreeLocks locks;
    FileTree fs;

    @BeforeEach
    void setUp() {
        index = "fs-" + UUID.randomUUID().toString().substring(0, 8);
        locks = locks("worker-1");
        fs = FileTree.of(b -> b.client(es()).index(index).locks(locks).batchSize(100));
        fs.createIndex();
    }

    @AfterEach
    void tearDown() throws IOException {
        locks.close();
        es().indices().delete(d -> d.index(index));
    }

    TreeLocks locks(String owner) {
        return TreeLocks.of(b -> b.client(es()).index(index).owner(owner).backend(backend()));
    }

    @Test
    void shouldFindFilesInASubtreeLikeGrepR() {
        write("/clinton/projects/elasticsearch/README.txt", "Some text about Elasticsearch");
        write("/clinton/projects/kibana/README.txt", "Kibana shows Elasticsearch data");
        write("/clinton/notes.txt", "nothing relevant");
        write("/zach/README.txt", "Elasticsearch again");

        assertThat(paths(fs.grep("/clinton", "elasticsearch")))
                .containsExactlyInAnyOrder(
                        "/clinton/projects/elasticsearch/README.txt", "/clinton/projects/kibana/README.txt");
        assertThat(paths(fs.grep("/clinton/projects/kibana", "elasticsearch")))
                .containsExactly("/clinton/projects/kibana/README.txt");
        assertThat(paths(fs.grep("/", "elasticsearch"))).hasSize(3);
        assertThat(paths(fs.grep("/clint", "elasticsearch")))
                .as("a prefix that is not a directory")
                .isEmpty();
    }

    /**
     * A create whose request is lost on the way (the call fails) reaches the node late, after the caller wrote the file
     * again (issue 42): the retried write took the slot of the path the lost copy names, so the copy is refused instead
     * of making a second document for the path.
     */
    @Test
    void shouldRefuseALostCreateThatArrivesAfterTheWriteWasRetried() throws Exception {
        String path = "/a/late.txt";
        try (LossyProxy proxy = LossyProxy.to(httpUri())) {
            ElasticsearchClient throughProxy = Clients.connect(List.of(proxy.uri()));
            try {
                ReplayingTransport transport = ReplayingTransport.of(throughProxy);
                FileTree lossy = FileTree.of(
                        b -> b.client(transport.client()).index(index).locks(locks));
                proxy.dropRequests(1.0, line -> line.startsWith("PUT /" + index + "/"));
                assertThatThrownBy(() -> lossy.write(path, "first")).isInstanceOf(FsException.class);
                proxy.heal();
                List<ReplayingTransport.Sent> lost = transport.sent(s ->
                        s.request() instanceof IndexRequest<?> r && r.index().equals(index));
                assertThat(lost).as("the create that was lost").hasSize(1);
                assertThat(fs.read(path)).as("nothing reached the node").isEmpty();

                assertThat(fs.write(path, "second").written()).isTrue(); // the caller tries again

                assertThatThrownBy(() -> transport.replay(lost.get(0)))
                        .as("the lost create, arriving late")
                        .isInstanceOfSatisfying(
                                ElasticsearchException.class,
                                e -> assertThat(e.status()).isEqualTo(409));
            } finally {
                throughProxy._transport().close();
            }
        }
        assertThat(fs.read(path).orElseThrow().contents()).isEqualTo("second");
        assertThat(fs.count("/a")).as("one document for the path").isEqualTo(1);
    }

    /**
     * Each write applied twice, as when the same request is sent again after its answer was lost (issue 42): the
     * second copy is refused (409) by the first, and the call reports what the first did, not a newer lock holder.
     */
    @Test
    void shouldReportWritesAndRenamesWhoseRequestWasAppliedTwiceAsDone() throws Exception {
        ReplayingTransport transport = ReplayingTransport.of(es());
        FileTree twice = FileTree.of(
                b -> b.client(transport.client()).index(index).locks(locks).batchSize(100));
        Predicate<ReplayingTransport.Sent> writeToTheTree = s -> s.request() instanceof IndexRequest<?> r
                        && r.index().equals(index)
                || s.request() instanceof BulkRequest b && b.operations().size() > 0;

        transport.sendTwice(writeToTheTree);
        assertThat(twice.write("/a/new.txt", "one").written()).as("a new file").isTrue();
        transport.sendTwice(writeToTheTree);
        assertThat(twice.write("/a/new.txt", "two").written())
                .as("a file written again")
                .isTrue();
        transport.sendTwice(writeToTheTree);
        assertThat(twice.renameFile("/a/new.txt", "/b/new.txt").status()).isEqualTo(RenameResult.Status.DONE);
        bulkWrite("/dir", 250);
        transport.sendTwice(writeToTheTree);
        RenameResult dir = twice.renameDirectory("/dir", "/moved");

        assertThat(dir.status()).as(dir.message()).isEqualTo(RenameResult.Status.DONE);
        assertThat(dir.moved()).isEqualTo(250);
        assertThat(fs.read("/b/new.txt").orElseThrow().contents()).isEqualTo("two");
        assertThat(fs.count("/a")).isZero();
        assertThat(fs.count("/moved")).isEqualTo(250);
        assertThat(fs.count("/dir")).isZero();
    }

    @Test
    void shouldRenameAFile() {
        write("/a/old.txt", "hello");
        RenameResult r = fs.renameFile("/a/old.txt", "/b/new.txt");
        assertThat(r.status()).isEqualTo(RenameResult.Status.DONE);
        assertThat(fs.read("/a/old.txt")).isEmpty();
        assertThat(fs.read("/b/new.txt"))
                .hasValueSatisfying(f -> assertThat(f.contents()).isEqualTo("hello"));
        assertThat(fs.renameFile("/a/old.txt", "/c.txt").status()).isEqualTo(RenameResult.Status.REFUSED);
    }

    @Test
    void shouldRenameADirectoryWithEverythingBelowIt() {
        int files = 450;
        bulkWrite("/clinton", files);
        List<long[]> progress = new ArrayList<>();
        FileTree withProgress = FileTree.of(b -> b.client(es())
                .index(index)
                .locks(locks)
                .batchSize(100)
                .listener(new RenameListener() {
                    @Override
                    public void progress(long done, long total) {
                        progress.add(new long[] {done, total});
                    }
                }));

        RenameResult r = withProgress.renameDirectory("/clinton", "/zach");

        assertThat(r.status()).isEqualTo(RenameResult.Status.DONE);
        assertThat(r.moved()).isEqualTo(files);
        assertThat(fs.count("/clinton")).isZero();
        assertThat(fs.count("/zach")).isEqualTo(files);
        assertThat(fs.count("/zach/projects/p3")).isEqualTo(files / 10);
        assertThat(fs.read("/zach/projects/p7/file-7.txt"))
                .hasValueSatisfying(f -> assertThat(f.contents()).isEqualTo("contents 7"));
        assertThat(progress).extracting(p -> p[0]).containsExactly(100L, 200L, 300L, 400L, 450L);
        assertThat(locks.list()).as("locks released at the end").isEmpty();
    }

    @Test
    void shouldRefuseARenameIntoAnExistingDirectoryOrIntoItself() {
        write("/a/x.txt", "1");
        write("/b/y.txt", "2");
        assertThat(fs.renameDirectory("/a", "/b").status()).isEqualTo(RenameResult.Status.REFUSED);
        assertThatThrownBy(() -> fs.renameDirectory("/a", "/a/sub")).isInstanceOf(IllegalArgumentException.class);
        assertThat(fs.renameDirectory("/nothing", "/c").status()).isEqualTo(RenameResult.Status.REFUSED);
    }

    @Test
    void shouldFinishARenameThatStoppedPartWayWhenAskedToContinueIt() {
        for (int i = 0; i < 10; i++) {
            write("/a/f" + i + ".txt", "file " + i);
        }
        // What a rename stopped after its first page leaves: some files already below the target.
        for (int i = 0; i < 3; i++) {
            assertThat(fs.renameFile("/a/f" + i + ".txt", "/b/f" + i + ".txt").status())
                    .isEqualTo(RenameResult.Status.DONE);
        }

        RenameResult again = fs.renameDirectory("/a", "/b");
        assertThat(again.status()).isEqualTo(RenameResult.Status.REFUSED);
        assertThat(again.message()).contains("continueRenameDirectory");

        RenameResult rest = fs.continueRenameDirectory("/a", "/b");
        assertThat(rest.status()).as(rest.toString()).isEqualTo(RenameResult.Status.DONE);
        assertThat(rest.moved()).isEqualTo(7);
        assertThat(fs.count("/a")).isZero();
        assertThat(fs.count("/b")).isEqualTo(10);
        assertThat(fs.read("/b/f9.txt")).map(FileDoc::contents).contains("file 9");
        assertThat(fs.continueRenameDirectory("/a", "/b").status())
                .as("nothing left")
                .isEqualTo(RenameResult.Status.REFUSED);
    }

    @Test
    void shouldRefuseTheSecondOfTwoConcurrentRenames() throws Exception {
        bulkWrite("/clinton", 300);
        CountDownLatch firstIsRunning = new CountDownLatch(1);
        CountDownLatch secondTried = new CountDownLatch(1);
        FileTree first = FileTree.of(b -> b.client(es())
                .index(index)
                .locks(locks)
                .batchSize(100)
                .listener(new RenameListener() {
                    @Override
                    public void progress(long done, long total) {
                        firstIsRunning.countDown();
                        await(secondTried);
                    }
                }));
        CompletableFuture<RenameResult> firstRename =
                CompletableFuture.supplyAsync(() -> first.renameDirectory("/clinton", "/zach"));
        assertThat(firstIsRunning.await(60, TimeUnit.SECONDS)).isTrue();

        RenameResult second;
        try (TreeLocks otherProcess = locks("worker-2")) {
            FileTree other = FileTree.of(b -> b.client(es()).index(index).locks(otherProcess));
            second = other.renameDirectory("/clinton", "/bob");
            WriteResult refused = other.write("/clinton/new.txt", "x");
            assertThat(refused.status())
                    .as("a write below the directory being renamed")
                    .isEqualTo(WriteResult.Status.LOCKED);
            assertThat(refused.conflicts()).as("the refusal names the holder").isNotEmpty();
        } finally {
            secondTried.countDown();
        }

        assertThat(second.status()).isEqualTo(RenameResult.Status.LOCKED);
        assertThat(second.conflicts()).anySatisfy(c -> {
            assertThat(c.owner()).isEqualTo("worker-1");
            assertThat(c.mode()).isEqualTo(LockMode.EXCLUSIVE);
        });
        assertThat(firstRename.get(120, TimeUnit.SECONDS).status()).isEqualTo(RenameResult.Status.DONE);
        assertThat(fs.count("/zach")).isEqualTo(300);
        assertThat(fs.count("/bob")).isZero();
    }

    /**
     * A rename whose second lock (the path that sorts later) is busy waits for it up to the rename's lock wait,
     * instead of giving up at once, and completes when the holder lets go.
     */
    @Test
    void shouldWaitForTheSecondLockOfARenameUpToItsLockWait() throws Exception {
        bulkWrite("/alpha", 30);
        FileTree renamer =
                FileTree.of(b -> b.client(es()).index(index).locks(locks).renameLockWait(Duration.ofSeconds(60)));
        CompletableFuture<RenameResult> rename;
        try (TreeLocks otherProcess = locks("holder");
                TreeLock target =
                        otherProcess.acquire("/zulu", LockMode.EXCLUSIVE).orThrow()) {
            rename = CompletableFuture.supplyAsync(() -> renamer.renameDirectory("/alpha", "/zulu"));
            // Time for a rename that gives up at once to do so; one that waits is still waiting after it.
            Thread.sleep(1_000);
            assertThat(rename).as("the rename waits while the target is locked").isNotDone();
            assertThat(target.isHeld()).isTrue();
        }
        RenameResult done = rename.get(120, TimeUnit.SECONDS);
        assertThat(done.status()).isEqualTo(RenameResult.Status.DONE);
        assertThat(fs.count("/zulu")).isEqualTo(30);
    }

    /**
     * While a rename waits for its second path it holds nothing: another process can lock its first path
     * meanwhile. A rename that held the first path while waiting would block every writer below it.
     */
    @Test
    void shouldNotHoldTheFirstPathOfARenameWhileWaitingForTheSecond() throws Exception {
        bulkWrite("/alpha", 10);
        FileTree renamer =
                FileTree.of(b -> b.client(es()).index(index).locks(locks).renameLockWait(Duration.ofSeconds(60)));
        CompletableFuture<RenameResult> rename;
        int grantedMeanwhile = 0;
        try (TreeLocks holders = locks("holder");
                TreeLock target = holders.acquire("/zulu", LockMode.EXCLUSIVE).orThrow();
                TreeLocks writers = locks("writer")) {
            rename = CompletableFuture.supplyAsync(() -> renamer.renameDirectory("/alpha", "/zulu"));
            for (int i = 0; i < 50 && grantedMeanwhile < 3; i++) {
                AcquireResult<TreeLock> r = writers.acquire("/alpha/x.txt", LockMode.EXCLUSIVE);
                if (r.acquired()) {
                    grantedMeanwhile++;
                    r.orThrow().close();
                }
                Thread.sleep(50);
            }
            assertThat(rename).isNotDone();
            assertThat(target.isHeld()).isTrue();
        }
        assertThat(grantedMeanwhile)
                .as("locks on the first path granted to others while the rename waited")
                .isEqualTo(3);
        assertThat(rename.get(120, TimeUnit.SECONDS).status()).isEqualTo(RenameResult.Status.DONE);
    }

    /** A rename whose lock wait runs out reports LOCKED with the holder, and holds nothing afterwards. */
    @Test
    void shouldGiveUpARenameAfterItsLockWaitNamingTheHolder() throws Exception {
        bulkWrite("/alpha", 5);
        FileTree renamer =
                FileTree.of(b -> b.client(es()).index(index).locks(locks).renameLockWait(Duration.ofMillis(300)));
        try (TreeLocks holders = locks("holder");
                TreeLock target = holders.acquire("/zulu", LockMode.EXCLUSIVE).orThrow()) {
            RenameResult refused = renamer.renameDirectory("/alpha", "/zulu");
            assertThat(refused.status()).isEqualTo(RenameResult.Status.LOCKED);
            assertThat(refused.conflicts()).extracting(LockConflict::owner).contains("holder");
            assertThat(target.isHeld()).isTrue();
        }
        assertThat(locks.list(TreePath.of("/")))
                .as("the refused rename holds nothing")
                .isEmpty();
    }

    /** One tree, a writer that must not block and a renamer that waits: separate settings; a refusal says why. */
    @Test
    void shouldRefuseABusyWriteAtOnceNamingTheHolderWhileRenamesWait() throws Exception {
        FileTree tree = FileTree.of(b -> b.client(es())
                .index(index)
                .locks(locks)
                .writeLockWait(Duration.ZERO)
                .renameLockWait(Duration.ofSeconds(30)));
        try (TreeLocks holders = locks("holder");
                TreeLock dir = holders.acquire("/busy", LockMode.EXCLUSIVE).orThrow()) {
            WriteResult refused = tree.write("/busy/file.txt", "x");
            assertThat(refused.status()).isEqualTo(WriteResult.Status.LOCKED);
            assertThat(refused.conflicts()).singleElement().satisfies(c -> {
                assertThat(c.owner()).isEqualTo("holder");
                assertThat(c.path()).isEqualTo("/busy");
            });
            assertThat(refused.message()).contains("holder");
            assertThatThrownBy(refused::orThrow).isInstanceOf(FsException.class).hasMessageContaining("holder");
            assertThat(dir.isHeld()).isTrue();
        }
        assertThat(tree.write("/busy/file.txt", "x").written()).isTrue();
    }

    void write(String path, String contents) {
        assertThat(fs.write(path, contents).status()).as("write %s", path).isEqualTo(WriteResult.Status.WRITTEN);
    }

    /**
     * {@code count} files in 10 sub-directories of {@code dir}, bulk-indexed in the model's document
     * layout (one locked write per file would only slow the test down).
     */
    void bulkWrite(String dir, int count) {
        co.elastic.clients.elasticsearch.core.BulkRequest.Builder bulk =
                new co.elastic.clients.elasticsearch.core.BulkRequest.Builder()
                        .refresh(co.elastic.clients.elasticsearch._types.Refresh.True);
        for (int i = 0; i < count; i++) {
            TreePath file = p(dir + "/projects/p" + (i % 10) + "/file-" + i + ".txt");
            java.util.Map<String, Object> source = fs.source(file, "contents " + i);
            bulk.operations(op -> op.create(
                    c -> c.index(index).id(UUID.randomUUID().toString()).document(source)));
        }
        try {
            assertThat(es().bulk(bulk.build()).errors()).isFalse();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static List<String> paths(List<FileDoc> docs) {
        return docs.stream().map(d -> d.path().value()).toList();
    }

    static void await(CountDownLatch latch) {
        try {
            latch.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static TreePath p(String s) {
        return TreePath.of(s);
    }
}
