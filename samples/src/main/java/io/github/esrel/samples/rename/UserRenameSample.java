package io.github.esrel.samples.rename;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch.core.bulk.BulkOperation;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.denorm.Progress;
import io.github.esrel.denorm.PropagationListener;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.retry.RetryPolicy;
import io.github.esrel.samples.support.Indices;
import io.github.esrel.samples.support.Sample;
import io.github.esrel.samples.support.Table;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Seed 000 §1.2/§1.4: each blog post carries a copy of its author's name ({@code user.name}) so that
 * "posts by John" is one query. When John renames himself, every copy must follow: esrel streams his
 * posts (point in time + search_after) and rewrites them with conditional bulk requests, showing a
 * progress bar, while readers keep editing posts. No scripts, no {@code _update_by_query}.
 */
public final class UserRenameSample extends Sample {

    private static final String USERS = "rename-users";
    private static final String POSTS = "rename-posts";
    private static final int JOHNS_POSTS = 3_000;
    private static final int MARYS_POSTS = 300;

    /** Creates the sample. */
    public UserRenameSample() {
        super("rename", "Renaming a user propagated to all of his posts, with a progress bar and concurrent edits");
    }

    @Override
    public void run(ElasticsearchClient es, PrintStream out) throws Exception {
        Indices.deleteIfExist(es, USERS, POSTS, "esrel-propagation");
        Indices.createOneShard(es, USERS);
        es.indices().create(c -> c.index(POSTS).withJson(new StringReader("""
            {"settings": {"number_of_shards": 2, "number_of_replicas": 0},
             "mappings": {"properties": {"title": {"type": "text"}, "edits": {"type": "long"},
               "user": {"properties": {"id": {"type": "keyword"}, "name": {"type": "keyword"}}}}}}""")));
        es.index(i -> i.index(USERS).id("1").document(Map.of("name", "John Smith", "email", "john@smith.com")));
        es.index(i -> i.index(USERS).id("2").document(Map.of("name", "Mary Jones", "email", "mary@jones.com")));
        load(es, "1", "John Smith", "j", JOHNS_POSTS);
        load(es, "2", "Mary Jones", "m", MARYS_POSTS);
        es.indices().refresh(r -> r.index(POSTS));

        out.printf(
                "%n1. %,d posts by John Smith and %,d by Mary Jones, each with the author's name copied in:%n",
                JOHNS_POSTS, MARYS_POSTS);
        out.println("   { \"title\": \"...\", \"user\": { \"id\": \"1\", \"name\": \"John Smith\" } }");
        out.printf("   posts with user.name = \"John Smith\": %,d (one query, no join)%n", count(es, "John Smith"));

        Relation author = Relation.of(r -> r.name("post-author")
                .parentIndex(USERS)
                .childIndex(POSTS)
                .parentIdField("user.id")
                .copy("name", "user.name"));
        out.println("\n2. John renames himself to \"John A. Smith\". The relation is declared once:");
        out.println("   " + author);
        es.index(i -> i.index(USERS).id("1").document(Map.of("name", "John A. Smith", "email", "john@smith.com")));

        int[] lastDecile = {-1};
        Propagator propagator =
                Propagator.of(p -> p.client(es).relation(author).batchSize(300).listener(new PropagationListener() {
                    @Override
                    public void onProgress(Progress pr) {
                        int decile = (int) (pr.fraction() * 10);
                        if (decile != lastDecile[0]) {
                            lastDecile[0] = decile;
                            out.println("   " + pr.bar(40));
                        }
                    }
                }));
        propagator.ensureCheckpointIndex(); // once per cluster; the first job would otherwise create it
        out.println("\n3. Propagation, while three readers keep editing random posts of John's (optimistic updates):");
        Occ occ = Occ.of(b -> b.client(es).retryPolicy(RetryPolicy.of(p -> p.maxAttempts(100))));
        AtomicBoolean stop = new AtomicBoolean();
        Map<String, Integer> edits = new ConcurrentHashMap<>();
        AtomicInteger editConflicts = new AtomicInteger();
        List<Thread> editors = new ArrayList<>();
        for (int w = 0; w < 3; w++) {
            Random rnd = new Random(w);
            Thread t = new Thread(
                    () -> {
                        while (!stop.get()) {
                            String id = "j" + rnd.nextInt(JOHNS_POSTS);
                            Outcome<ObjectNode> o = occ.update(POSTS, id, ObjectNode.class, post -> {
                                ObjectNode c = post.deepCopy();
                                c.put("edits", c.path("edits").asInt() + 1);
                                return c;
                            });
                            if (o.status() == Outcome.Status.UPDATED) {
                                edits.merge(id, 1, Integer::sum);
                                editConflicts.addAndGet(o.conflicts());
                            }
                            try {
                                Thread.sleep(2); // a reader, not a load generator: leave the node to the job
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "editor-" + w);
            t.start();
            editors.add(t);
        }
        PropagationResult result;
        try {
            result = propagator.propagate("1");
        } finally {
            stop.set(true);
            for (Thread t : editors) {
                t.join();
            }
        }
        es.indices().refresh(r -> r.index(POSTS));

        long renamed = count(es, "John A. Smith");
        long stale = count(es, "John Smith");
        long mary = count(es, "Mary Jones");
        int editsMade = edits.values().stream().mapToInt(Integer::intValue).sum();
        long editsKept = 0;
        for (Map.Entry<String, Integer> e : edits.entrySet()) {
            ObjectNode post =
                    es.get(g -> g.index(POSTS).id(e.getKey()), ObjectNode.class).source();
            if (post.path("edits").asInt() == e.getValue()) {
                editsKept += e.getValue();
            }
        }
        out.println();
        Table t = Table.of("what", "value");
        t.row("job", result.jobId() + " " + result.state());
        t.row("posts rewritten", result.counts().written());
        t.row("took (ms)", result.took().toMillis());
        t.row(
                "version conflicts met by the job (re-read, re-applied)",
                result.counts().conflicts());
        t.row("concurrent edits made by readers", editsMade);
        t.row("version conflicts met by the readers' edits (re-read, re-applied)", editConflicts.get());
        t.row("concurrent edits still there afterwards", editsKept);
        t.row("posts with user.name = \"John A. Smith\"", renamed);
        t.row("posts with user.name = \"John Smith\"", stale);
        t.row("Mary's posts (untouched)", mary);
        t.print(out);
        if (renamed != JOHNS_POSTS
                || stale != 0
                || mary != MARYS_POSTS
                || editsKept != editsMade
                || !result.complete()) {
            throw new IllegalStateException("expected every post renamed and every edit kept; got " + result
                    + ", renamed " + renamed + ", stale " + stale + ", edits " + editsKept + "/" + editsMade);
        }

        out.println(
                "\n4. Run it again: every post already carries the parent's seq_no as its stamp, so nothing is read or"
                        + " written.");
        PropagationResult again = propagator.propagate("1");
        out.printf(
                "   second run: %s, %d posts visited, %d written, %d ms%n",
                again.state(),
                again.counts().done(),
                again.counts().written(),
                again.took().toMillis());
        if (again.counts().written() != 0) {
            throw new IllegalStateException(
                    "the second run rewrote " + again.counts().written() + " posts");
        }
    }

    private static void load(ElasticsearchClient es, String userId, String name, String prefix, int n)
            throws IOException {
        for (int from = 0; from < n; from += 2000) {
            List<BulkOperation> ops = new ArrayList<>();
            for (int i = from; i < Math.min(n, from + 2000); i++) {
                ObjectNode post = JsonNodeFactory.instance
                        .objectNode()
                        .put("title", "Post " + i + ": relationships are complicated")
                        .put("edits", 0);
                post.putObject("user").put("id", userId).put("name", name);
                String id = prefix + i;
                ops.add(BulkOperation.of(o -> o.index(x -> x.index(POSTS).id(id).document(post))));
            }
            if (es.bulk(b -> b.operations(ops)).errors()) {
                throw new IllegalStateException("loading posts failed");
            }
        }
    }

    private static long count(ElasticsearchClient es, String name) throws IOException {
        return es.count(c -> c.index(POSTS)
                        .query(q -> q.term(t -> t.field("user.name").value(name))))
                .count();
    }
}
