package io.github.esrel.fs;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.internal.ConditionalWrites;
import io.github.esrel.internal.Listeners;
import io.github.esrel.internal.Reasons;
import io.github.esrel.path.TreePath;
import io.github.esrel.retry.Backoff;
import io.github.esrel.retry.Failures;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.retry.StopReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One directory rename, run while its locks are held: point-in-time + {@code search_after} over the
 * files below the source (constant memory: one page at a time), one fenced bulk request per page.
 */
final class DirectoryRename {

    private static final Logger log = LoggerFactory.getLogger(DirectoryRename.class);
    /** Rejected writes (429) are sent again, backing off from 50 ms to 2 s, 9 attempts in all. */
    private static final RetryPolicy REJECTIONS = RetryPolicy.of(r -> r.maxAttempts(9)
        .backoff(Backoff.exponentialWithJitter(Duration.ofMillis(50), 2.0, Duration.ofSeconds(2))).retryOn(Failures.rejected()));

    private final FileTree tree;
    private final TreePath from;
    private final TreePath to;
    private final long token;
    private final BooleanSupplier held;

    DirectoryRename(FileTree tree, TreePath from, TreePath to, long token, BooleanSupplier held) {
        this.tree = tree;
        this.from = from;
        this.to = to;
        this.token = token;
        this.held = held;
    }

    RenameResult run() throws IOException {
        long total = tree.count(from.value());
        if (total == 0) {
            return FileTree.refused("no files below " + from);
        }
        if (tree.count(to.value()) > 0 || tree.read(to.value()).isPresent()) {
            return FileTree.refused(to + " already exists");
        }
        notifyStarted(total);
        String pit = tree.es().openPointInTime(p -> p.index(tree.index()).keepAlive(k -> k.time("2m"))).id();
        long moved = 0;
        try {
            List<FieldValue> after = null;
            while (true) {
                List<Hit<Map<String, Object>>> page = page(pit, after);
                if (page.isEmpty()) {
                    break;
                }
                if (!held.getAsBoolean()) {
                    return fenced(moved, total, "the lock's lease ended while renaming; stopped before writing more");
                }
                String conflict = write(page);
                if (conflict != null) {
                    return fenced(moved, total, conflict);
                }
                moved += page.size();
                notifyProgress(moved, total);
                after = page.get(page.size() - 1).sort();
            }
        } finally {
            try {
                tree.es().closePointInTime(c -> c.id(pit));
            } catch (IOException | RuntimeException e) {
                log.warn("could not close point in time of rename {} -> {} (it expires by itself): {}", from, to, e.toString());
            }
        }
        tree.es().indices().refresh(r -> r.index(tree.index()));
        return new RenameResult(RenameResult.Status.DONE, moved, total, token, List.of(),
            "renamed " + from + " to " + to + ": " + moved + " files");
    }

    private List<Hit<Map<String, Object>>> page(String pit, List<FieldValue> after) throws IOException {
        SearchResponse<Map<String, Object>> resp = tree.es().search(s -> {
            s.pit(p -> p.id(pit).keepAlive(k -> k.time("2m")))
                .size(tree.batchSize())
                .version(true)
                .seqNoPrimaryTerm(true)
                .query(FileTree.below(from))
                .sort(o -> o.field(f -> f.field("_shard_doc").order(SortOrder.Asc)));
            if (after != null) {
                s.searchAfter(after);
            }
            return s;
        }, FileTree.SOURCE);
        return resp.hits().hits();
    }

    /** Rewrites one page; returns why the page was fenced off, or null when every file moved. */
    private String write(List<Hit<Map<String, Object>>> page) throws IOException {
        String[] fenced = {null};
        ElasticsearchException[] failed = {null};
        String[] failedFile = {null};
        ConditionalWrites.Report r = ConditionalWrites.builder(this::op).client(tree.es()).retryPolicy(REJECTIONS)
            .stopWhen(() -> fenced[0] != null || failed[0] != null)
            .listener(new ConditionalWrites.Listener<Hit<Map<String, Object>>>() {
                @Override
                public void onConflict(Hit<Map<String, Object>> hit, int attempt, boolean finalOutcome) {
                    if (fenced[0] == null) {
                        fenced[0] = "file " + hit.id() + " was changed by a newer lock holder; this rename's lease must have ended";
                    }
                }

                @Override
                public void onGaveUp(Hit<Map<String, Object>> hit, StopReason stop, ElasticsearchException last) {
                    onFailed(hit, last);
                }

                @Override
                public void onFailed(Hit<Map<String, Object>> hit, ElasticsearchException failure) {
                    if (failed[0] == null) {
                        failed[0] = failure;
                        failedFile[0] = hit.id();
                    }
                }
            }).build().write(page);
        if (fenced[0] != null) {
            return fenced[0];
        }
        if (failed[0] != null) {
            throw new FsException("rename " + from + " -> " + to + " could not write file " + failedFile[0] + ": "
                + Reasons.of(failed[0]), failed[0]);
        }
        if (r.interrupted()) {
            throw new FsException("interrupted while backing off from a rejected bulk", null);
        }
        return null;
    }

    private BulkOperation op(Hit<Map<String, Object>> hit) {
        FileDoc doc = FileTree.toDoc(hit);
        Map<String, Object> source = tree.source(doc.path().rebase(from, to), doc.contents());
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
        Listeners.safely(() -> tree.listener().started(from.value(), to.value(), total, token), "RenameListener.started");
    }

    private void notifyProgress(long done, long total) {
        Listeners.safely(() -> tree.listener().progress(done, total), "RenameListener.progress");
    }
}
