package io.github.esrel.fs;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.doc.DocStream;
import io.github.esrel.doc.DocStreamException;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.internal.bulk.ConditionalWrites;
import io.github.esrel.path.TreePath;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * One directory rename, run while its locks are held: a {@link DocStream} over the files below the source
 * (point in time + {@code search_after}, constant memory: one page at a time), one fenced bulk request per page.
 *
 * @param tree the file tree
 * @param from the directory renamed
 * @param to its new path
 * @param token the fencing token of the locks held
 * @param held true while both locks are still held, as far as this process knows
 * @param continuing whether it finishes a rename that stopped part way ({@code to} may then hold files already)
 */
record DirectoryRename(
        FileTree tree, TreePath from, TreePath to, long token, BooleanSupplier held, boolean continuing) {

    /** How long the point in time over the files lives between two pages: longer than writing a page takes. */
    private static final Duration KEEP_ALIVE = Duration.ofMinutes(2);
    /** Rejected writes (429) are sent again, backing off from 50 ms to 2 s, 9 attempts in all. */
    private static final RetryPolicy REJECTIONS = RetryPolicy.of(r -> r.maxAttempts(9)
            .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(50), 2.0, Duration.ofSeconds(2)))
            .retryOn(Failures.rejected()));

    RenameResult run() throws IOException {
        long total = tree.count(from.value());
        if (total == 0) {
            return FileTree.refused("no files below " + from);
        }
        if (tree.read(to.value()).isPresent()) {
            return FileTree.refused(to + " already exists as a file");
        }
        if (!continuing && tree.count(to.value()) > 0) {
            // Files are moved in place (their _id stays), so a rename stopped part way left each file in one place:
            // the caller who knows that is what happened finishes it with continueRenameDirectory.
            return FileTree.refused(to + " already exists (if an earlier rename of " + from + " to " + to
                    + " stopped part" + " way, finish it with continueRenameDirectory)");
        }
        notifyStarted(total);
        long moved = 0;
        try (DocStream files = DocStream.of(b -> b.client(tree.es())
                .index(tree.index())
                .query(FileTree.below(from))
                .pageSize(tree.batchSize())
                .keepAlive(KEEP_ALIVE)
                .mode(DocStream.Mode.POINT_IN_TIME))) {
            for (List<Hit<ObjectNode>> page = files.next(); !page.isEmpty(); page = files.next()) {
                if (!held.getAsBoolean()) {
                    return fenced(moved, total, "the lock's lease ended while renaming; stopped before writing more");
                }
                String conflict = write(page);
                if (conflict != null) {
                    return fenced(moved, total, conflict);
                }
                moved += page.size();
                notifyProgress(moved, total);
            }
        } catch (DocStreamException e) {
            throw new FsException("rename " + from + " -> " + to + " failed: " + e.getMessage(), e);
        }
        tree.es().indices().refresh(r -> r.index(tree.index()));
        return new RenameResult(
                RenameResult.Status.DONE,
                moved,
                total,
                token,
                List.of(),
                "renamed " + from + " to " + to + ": " + moved + " files");
    }

    /** Rewrites one page; returns why the page was fenced off, or null when every file moved. */
    private @Nullable String write(List<Hit<ObjectNode>> page) throws IOException {
        String[] fenced = {null};
        List<Hit<ObjectNode>> conflicted = new ArrayList<>();
        ElasticsearchException[] failed = {null};
        String[] failedFile = {null};
        ConditionalWrites.Report r = ConditionalWrites.builder(this::op)
                .client(tree.es())
                .retryPolicy(REJECTIONS)
                .stopWhen(() -> fenced[0] != null || failed[0] != null)
                .listener(new ConditionalWrites.Listener<Hit<ObjectNode>>() {
                    @Override
                    public void onConflict(Hit<ObjectNode> hit, int attempt, boolean finalOutcome) {
                        conflicted.add(hit);
                    }

                    @Override
                    public void onGaveUp(Hit<ObjectNode> hit, StopReason stop, ElasticsearchException last) {
                        onFailed(hit, last);
                    }

                    @Override
                    public void onFailed(Hit<ObjectNode> hit, ElasticsearchException failure) {
                        if (failed[0] == null) {
                            failed[0] = failure;
                            failedFile[0] = hit.id();
                        }
                    }
                })
                .build()
                .write(page);
        fenced[0] = fencedOff(conflicted);
        if (fenced[0] != null) {
            return fenced[0];
        }
        if (failed[0] != null) {
            throw new FsException(
                    "rename " + from + " -> " + to + " could not write file " + failedFile[0] + ": "
                            + Reasons.of(failed[0]),
                    failed[0]);
        }
        if (r.interrupted()) {
            throw new FsException("interrupted while backing off from a rejected bulk", null);
        }
        return null;
    }

    /**
     * Why the page is fenced off, or null: a conflicting file already where this rename moves it was refused by the
     * rename's own copy of the write, applied first (the bulk was sent again after an I/O error); any other conflict
     * means a newer lock holder changed the file.
     */
    private @Nullable String fencedOff(List<Hit<ObjectNode>> conflicted) throws IOException {
        if (conflicted.isEmpty()) {
            return null;
        }
        Map<String, FileDoc> now =
                tree.storedById(conflicted.stream().map(Hit::id).toList());
        for (Hit<ObjectNode> hit : conflicted) {
            FileDoc stored = now.get(hit.id());
            if (stored == null || !stored.path().equals(target(hit))) {
                return "file " + hit.id() + " was changed by a newer lock holder; this rename's lease must have ended";
            }
        }
        return null;
    }

    /** Where this rename moves a file. */
    private TreePath target(Hit<ObjectNode> hit) {
        ObjectNode file = hit.source();
        return TreePath.of(file.get("path").asText())
                .child(file.get("name").asText())
                .rebase(from, to);
    }

    private BulkOperation op(Hit<ObjectNode> hit) {
        ObjectNode file = hit.source();
        TreePath path =
                TreePath.of(file.get("path").asText()).child(file.get("name").asText());
        JsonNode contents = file.get("contents");
        Map<String, Object> source =
                tree.source(path.rebase(from, to), contents == null || contents.isNull() ? null : contents.asText());
        return BulkOperation.of(b -> b.index(i -> {
            i.index(tree.index()).id(hit.id()).document(source);
            if (tree.layout().fencing() == FileTree.Fencing.EXTERNAL_VERSION) {
                return i.version(token).versionType(VersionType.External);
            }
            return i.ifSeqNo(hit.seqNo()).ifPrimaryTerm(hit.primaryTerm());
        }));
    }

    private RenameResult fenced(long moved, long total, String why) {
        return new RenameResult(RenameResult.Status.FENCED, moved, total, token, List.of(), why);
    }

    private void notifyStarted(long total) {
        Listeners.safely(
                () -> tree.listener().started(from.value(), to.value(), total, token), "RenameListener.started");
    }

    private void notifyProgress(long done, long total) {
        Listeners.safely(() -> tree.listener().progress(done, total), "RenameListener.progress");
    }
}
