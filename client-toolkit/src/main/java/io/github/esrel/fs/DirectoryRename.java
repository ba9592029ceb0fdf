package io.github.esrel.fs;

import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOrder;
import co.elastic.clients.elasticsearch._types.VersionType;
import co.elastic.clients.elasticsearch.core.BulkRequest;
import co.elastic.clients.elasticsearch.core.BulkResponse;
import co.elastic.clients.elasticsearch.core.SearchResponse;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import co.elastic.clients.elasticsearch.core.bulk.BulkResponseItem;
import co.elastic.clients.elasticsearch.core.search.Hit;
import io.github.esrel.path.TreePath;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * One directory rename, run while its locks are held: point-in-time + {@code search_after} over the
 * files below the source (constant memory: one page at a time), one fenced bulk request per page.
 */
final class DirectoryRename {

    private static final Logger log = LoggerFactory.getLogger(DirectoryRename.class);
    private static final int MAX_429_RETRIES = 8;

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
        List<Hit<Map<String, Object>>> pending = page;
        for (int attempt = 0; !pending.isEmpty(); attempt++) {
            BulkRequest.Builder bulk = new BulkRequest.Builder();
            for (Hit<Map<String, Object>> hit : pending) {
                bulk.operations(op(hit));
            }
            BulkResponse resp = tree.es().bulk(bulk.build());
            List<Hit<Map<String, Object>>> rejected = new ArrayList<>();
            for (int i = 0; i < resp.items().size(); i++) {
                BulkResponseItem item = resp.items().get(i);
                if (item.error() == null) {
                    continue;
                }
                if (item.status() == 409) {
                    return "file " + pending.get(i).id() + " was changed by a newer lock holder ("
                        + item.error().reason() + "); this rename's lease must have ended";
                }
                if (item.status() == 429 && attempt < MAX_429_RETRIES) {
                    rejected.add(pending.get(i));
                } else {
                    throw new FsException("rename " + from + " -> " + to + " could not write file " + item.id() + ": "
                        + item.error().type() + " " + item.error().reason(), null);
                }
            }
            pending = rejected;
            if (!pending.isEmpty()) {
                pause(attempt);
            }
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

    private static void pause(int attempt) {
        try {
            Thread.sleep(Math.min(2000L, 50L << attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FsException("interrupted while backing off from a rejected bulk", e);
        }
    }

    private void notifyStarted(long total) {
        try {
            tree.listener().started(from.value(), to.value(), total, token);
        } catch (RuntimeException e) {
            log.warn("rename listener failed in started(); ignored", e);
        }
    }

    private void notifyProgress(long done, long total) {
        try {
            tree.listener().progress(done, total);
        } catch (RuntimeException e) {
            log.warn("rename listener failed in progress(); ignored", e);
        }
    }
}
