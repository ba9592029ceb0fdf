package io.github.esrel.samples.fs;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import io.github.esrel.fs.FileDoc;
import io.github.esrel.fs.FileTree;
import io.github.esrel.fs.RenameListener;
import io.github.esrel.fs.RenameResult;
import io.github.esrel.lock.LockConflict;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Seed 000 §1.4–1.5: a file system in an index, {@code grep -r} over a subtree, and renaming a
 * directory (every file below it rewritten) under an exclusive tree lock, while a second process
 * tries to rename the same directory and to write below it, and is refused.
 */
public final class FileSystemRenameSample extends Sample {

    private static final String INDEX = "fs";
    private static final int FILES = 600;

    /** Creates the sample. */
    public FileSystemRenameSample() {
        super(
                "fs",
                "File system in an index: grep -r, and mv of a directory under tree locks while another process is refused");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws Exception {
        Indices.deleteIfExist(es, INDEX);
        try (TreeLocks worker1 = TreeLocks.of(b -> b.client(es).index(INDEX).owner("worker-1"));
                TreeLocks worker2 = TreeLocks.of(b -> b.client(es).index(INDEX).owner("worker-2"))) {
            FileTree fs = FileTree.of(b -> b.client(es).index(INDEX).locks(worker1));
            FileTree.Fencing fencing = fs.createIndex();
            out.printf(
                    "%nTree locks from the %s provider; late writes of an expired lock holder are fenced by %s.%n",
                    worker1.backend(), fencing);

            fs.write("/clinton/projects/elasticsearch/README.txt", "Some text about Elasticsearch");
            fs.write("/clinton/projects/kibana/README.txt", "Kibana visualises Elasticsearch data");
            fs.write("/clinton/todo.txt", "buy milk");
            for (int i = 0; i < FILES; i++) {
                fs.write("/clinton/archive/" + (i % 20) + "/note-" + i + ".txt", "note " + i);
                if (i == 99) {
                    out.printf("   (writing %d more files, each under its own exclusive lock...)%n", FILES - 100);
                }
            }
            out.println("\n1. grep -r elasticsearch /clinton   (term filter on path.tree + match on contents)");
            Table t = Table.of("path", "contents");
            for (FileDoc f : fs.grep("/clinton", "elasticsearch")) {
                t.row(f.path(), f.contents());
            }
            t.print(out);

            out.printf("%n2. worker-1: mv /clinton /zach   (%d files below /clinton)%n", fs.count("/clinton"));
            CountDownLatch renaming = new CountDownLatch(1);
            CountDownLatch worker2Done = new CountDownLatch(1);
            FileTree renamer = FileTree.of(b -> b.client(es)
                    .index(INDEX)
                    .locks(worker1)
                    .batchSize(100)
                    .listener(new ProgressBar(out, renaming, worker2Done)));
            CompletableFuture<RenameResult> rename =
                    CompletableFuture.supplyAsync(() -> renamer.renameDirectory("/clinton", "/zach"));
            if (!renaming.await(120, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the rename did not start");
            }

            FileTree other = FileTree.of(b -> b.client(es).index(INDEX).locks(worker2));
            RenameResult refused = other.renameDirectory("/clinton", "/bob");
            boolean wrote = other.write("/clinton/projects/new.txt", "written during the rename")
                    .written();
            worker2Done.countDown();
            out.printf("%n   worker-2: mv /clinton /bob -> %s%n", refused.status());
            for (LockConflict c : refused.conflicts()) {
                out.printf(
                        "             conflict: %s lock on %s held by %s until %s%n",
                        c.mode(), c.path(), c.owner(), c.expiresAt());
            }
            out.printf("   worker-2: write /clinton/projects/new.txt -> %s%n", wrote ? "WRITTEN" : "refused (locked)");

            RenameResult done = rename.get(300, TimeUnit.SECONDS);
            out.printf("%n   worker-1: %s (fencing token %d)%n", done.message(), done.token());
            out.printf(
                    "   files below /clinton: %d, below /zach: %d, below /bob: %d; locks left: %d%n",
                    fs.count("/clinton"),
                    fs.count("/zach"),
                    fs.count("/bob"),
                    worker1.list().size());
            if (refused.status() != RenameResult.Status.LOCKED
                    || wrote
                    || !done.done()
                    || fs.count("/zach") != FILES + 3
                    || fs.count("/clinton") != 0
                    || !worker1.list().isEmpty()) {
                throw new IllegalStateException("the rename did not behave as described: " + done + " / " + refused);
            }
            out.println("\n3. grep -r elasticsearch /zach");
            Table after = Table.of("path", "contents");
            for (FileDoc f : fs.grep("/zach", "elasticsearch")) {
                after.row(f.path(), f.contents());
            }
            after.print(out);
        }
    }

    /** Prints a progress bar; after the first page it lets the other worker try, and waits for it. */
    private static final class ProgressBar implements RenameListener {
        private final PrintStream out;
        private final CountDownLatch renaming;
        private final CountDownLatch otherDone;

        ProgressBar(PrintStream out, CountDownLatch renaming, CountDownLatch otherDone) {
            this.out = out;
            this.renaming = renaming;
            this.otherDone = otherDone;
        }

        @Override
        public void started(String from, String to, long total, long token) {
            out.printf("   locked %s and %s exclusively (token %d); moving %d files%n", from, to, token, total);
        }

        @Override
        public void progress(long done, long total) {
            out.printf("   [%-40s] %5d/%d%n", Table.bar(done, total, 40), done, total);
            if (renaming.getCount() > 0) {
                renaming.countDown();
                try {
                    otherDone.await(120, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }
}
