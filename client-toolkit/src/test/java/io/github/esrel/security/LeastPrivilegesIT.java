package io.github.esrel.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import co.elastic.clients.elasticsearch.ElasticsearchClient;
import co.elastic.clients.elasticsearch._types.Refresh;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.esrel.denorm.Checkpoint;
import io.github.esrel.denorm.JobState;
import io.github.esrel.denorm.PropagationException;
import io.github.esrel.denorm.PropagationResult;
import io.github.esrel.denorm.Propagator;
import io.github.esrel.denorm.Relation;
import io.github.esrel.doc.DocRef;
import io.github.esrel.fs.FileTree;
import io.github.esrel.fs.RenameResult;
import io.github.esrel.internal.ClientApi;
import io.github.esrel.join.Join;
import io.github.esrel.join.JoinQuery;
import io.github.esrel.lock.LockMode;
import io.github.esrel.lock.TreeLock;
import io.github.esrel.lock.TreeLocks;
import io.github.esrel.occ.Occ;
import io.github.esrel.occ.Outcome;
import io.github.esrel.path.TreePath;
import io.github.esrel.routing.DuplicateIdReport;
import io.github.esrel.routing.DuplicateIdScanner;
import io.github.esrel.routing.RoutingCalculator;
import io.github.esrel.routing.RoutingClient;
import io.github.esrel.testenv.Cluster;
import io.github.esrel.testenv.EsCluster;
import io.github.esrel.testenv.EsrelTest;
import io.github.esrel.testenv.Security;
import io.github.esrel.view.MaterializedView;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every capability on a cluster with security on (file realm, HTTPS): a user holding exactly the privileges
 * listed here succeeds, and for each listed privilege a user lacking only that one gets an esrel error with
 * status 403 naming the privilege, with nothing half-written (no lock held, no job marked complete, no document
 * changed). The README's privileges table is {@link #FEATURES}, written out.
 *
 * <p>Each user works on indices of its own ({@code <feature>-<variant>-<index>}), so that what one variant
 * creates cannot help another.
 */
@EsrelTest
class LeastPrivilegesIT {

    static final String PASSWORD = "esrel-test-password";

    /** What each capability needs: index privileges per index of the capability, and cluster privileges. */
    static final List<Feature> FEATURES = List.of(
            new Feature("routing", List.of(), need("orders", "read")),
            new Feature("routingstate", List.of("monitor")),
            new Feature("dupscan", List.of(), need("orders", "read")),
            new Feature("locks", List.of(), need("fs", "read", "write")),
            new Feature(
                    "doclocks",
                    List.of(),
                    need("fs", "read"),
                    need("treelocks", "read", "write", "create_index", "maintenance")),
            new Feature("occ", List.of(), need("designs", "read", "index")),
            new Feature("join", List.of(), need("users", "read"), need("posts", "read")),
            new Feature(
                    "propagation",
                    List.of(),
                    need("users", "read"),
                    need("posts", "read", "index", "maintenance"),
                    need("checkpoints", "read", "write", "create_index")),
            new Feature(
                    "views",
                    List.of(),
                    need("photos", "read", "maintenance"),
                    need("users", "read"),
                    need("view", "read", "write", "create_index", "maintenance"),
                    need("state", "read", "write", "create_index", "maintenance")),
            new Feature("files", List.of(), need("fs", "read", "write", "view_index_metadata", "maintenance")));

    @Cluster
    // Shared with ConnectingIT, which connects to it as the guide's client snippet does.
    static final EsCluster cluster =
            EsCluster.builder().security(security()).shared().build();

    private final ElasticsearchClient admin = cluster.client();

    @TestFactory
    Stream<DynamicTest> routingWithThePlugin() {
        return cases(
                "routing",
                (es, px) -> {
                    RoutingClient routing = RoutingClient.of(b -> b.client(es).source(RoutingClient.Source.PLUGIN));
                    assertThat(routing.calculator(px + "-orders").shard("order-1"))
                            .isBetween(0, 4);
                    assertThat(routing.calculate(px + "-orders", List.of(DocRef.id("1")))
                                    .shards())
                            .hasSize(1);
                },
                px -> admin.indices()
                        .create(c -> c.index(px + "-orders")
                                .settings(s -> s.numberOfShards("5").numberOfReplicas("0"))),
                px -> {});
    }

    @TestFactory
    Stream<DynamicTest> routingFromClusterState() {
        return cases(
                "routingstate",
                (es, px) -> {
                    RoutingClient routing =
                            RoutingClient.of(b -> b.client(es).source(RoutingClient.Source.CLUSTER_STATE));
                    assertThat(routing.calculator("r-state").shard("1")).isBetween(0, 2);
                },
                px -> {
                    if (!admin.indices().exists(e -> e.index("r-state")).value()) {
                        admin.indices()
                                .create(c -> c.index("r-state")
                                        .settings(s -> s.numberOfShards("3").numberOfReplicas("0")));
                    }
                },
                px -> {});
    }

    @TestFactory
    Stream<DynamicTest> duplicateIdScan() {
        return cases(
                "dupscan",
                (es, px) -> {
                    DuplicateIdReport report =
                            DuplicateIdScanner.of(b -> b.client(es)).scan(px + "-orders");
                    assertThat(report.documents()).isEqualTo(3);
                    assertThat(report.duplicates()).hasSize(1);
                    assertThat(report.duplicates().get(0).id()).isEqualTo("1");
                    assertThat(report.duplicates().get(0).routings()).hasSize(2).contains("a");
                },
                px -> {
                    admin.indices()
                            .create(c -> c.index(px + "-orders")
                                    .settings(s -> s.numberOfShards("3").numberOfReplicas("0")));
                    RoutingCalculator calc =
                            RoutingClient.of(b -> b.client(admin)).calculator(px + "-orders");
                    String other = calc.routingValuesForShard(
                                    (calc.shard(DocRef.id("1").withRouting("a")) + 1) % 3, 1, "b")
                            .get(0);
                    admin.index(i -> ClientApi.routing(i.index(px + "-orders").id("1"), "a")
                            .document(Map.of("n", 1)));
                    admin.index(i -> ClientApi.routing(i.index(px + "-orders").id("1"), other)
                            .document(Map.of("n", 2)));
                    admin.index(i -> i.index(px + "-orders").id("2").document(Map.of("n", 3)));
                    admin.indices().refresh(r -> r.index(px + "-orders"));
                },
                px -> {});
    }

    @TestFactory
    Stream<DynamicTest> treeLocksWithThePlugin() {
        return cases(
                "locks",
                (es, px) -> {
                    try (TreeLocks locks =
                            TreeLocks.of(b -> b.client(es).index(px + "-fs").backend(TreeLocks.Backend.PLUGIN))) {
                        try (TreeLock lock =
                                locks.acquire("/a/b", LockMode.EXCLUSIVE).orThrow()) {
                            assertThat(lock.token()).isPositive();
                            assertThat(locks.list(TreePath.of("/"))).hasSize(1);
                        }
                    }
                },
                px -> admin.indices().create(c -> c.index(px + "-fs")),
                px -> assertNoLocks(TreeLocks.Backend.PLUGIN, px + "-fs", null));
    }

    @TestFactory
    Stream<DynamicTest> treeLocksWithoutThePlugin() {
        return cases(
                "doclocks",
                (es, px) -> {
                    try (TreeLocks locks = TreeLocks.of(b -> b.client(es)
                            .index(px + "-fs")
                            .backend(TreeLocks.Backend.DOCUMENTS)
                            .lockIndex(px + "-treelocks"))) {
                        try (TreeLock lock =
                                locks.acquire("/a/b", LockMode.EXCLUSIVE).orThrow()) {
                            assertThat(lock.token()).isPositive();
                            assertThat(locks.list(TreePath.of("/"))).hasSize(1);
                        }
                    }
                },
                px -> admin.indices().create(c -> c.index(px + "-fs")),
                px -> assertNoLocks(TreeLocks.Backend.DOCUMENTS, px + "-fs", px + "-treelocks"));
    }

    @TestFactory
    Stream<DynamicTest> optimisticUpdates() {
        return cases(
                "occ",
                (es, px) -> {
                    Outcome<Votes> outcome = Occ.of(b -> b.client(es))
                            .update(px + "-designs", "1", Votes.class, v -> new Votes(v.votes() + 1));
                    assertThat(outcome.status()).isEqualTo(Outcome.Status.UPDATED);
                },
                px -> admin.index(i ->
                        i.index(px + "-designs").id("1").document(new Votes(0)).refresh(Refresh.True)),
                px -> assertThat(admin.get(g -> g.index(px + "-designs").id("1"), Votes.class)
                                .source()
                                .votes())
                        .isZero());
    }

    @TestFactory
    Stream<DynamicTest> joins() {
        return cases(
                "join",
                (es, px) -> {
                    JoinQuery<ObjectNode, ObjectNode> query = JoinQuery.builder(ObjectNode.class, ObjectNode.class)
                            .parents(
                                    px + "-users",
                                    q -> q.match(m -> m.field("name").query("John")))
                            .children(px + "-posts", "user_id")
                            .build();
                    assertThat(Join.of(b -> b.client(es))
                                    .childrenWhereParent(query)
                                    .pairs())
                            .hasSize(1);
                },
                px -> {
                    admin.indices()
                            .create(c -> c.index(px + "-posts")
                                    .mappings(m -> m.properties("user_id", x -> x.keyword(k -> k))));
                    admin.index(i -> i.index(px + "-users")
                            .id("u1")
                            .document(Map.of("name", "John"))
                            .refresh(Refresh.True));
                    admin.index(i -> i.index(px + "-posts")
                            .id("p1")
                            .document(Map.of("user_id", "u1"))
                            .refresh(Refresh.True));
                },
                px -> {});
    }

    @TestFactory
    Stream<DynamicTest> propagationWithCheckpoints() {
        return cases(
                "propagation",
                (es, px) -> {
                    PropagationResult done = Propagator.of(
                                    b -> b.client(es).relation(relation(px)).checkpointIndex(px + "-checkpoints"))
                            .propagate("u1");
                    assertThat(done.state()).isEqualTo(JobState.COMPLETED);
                    assertThat(done.counts().written()).isEqualTo(20);
                },
                px -> {
                    admin.indices()
                            .create(c -> c.index(px + "-posts")
                                    .mappings(m -> m.properties(
                                            "user",
                                            x -> x.object(o -> o.properties("id", k -> k.keyword(kw -> kw))
                                                    .properties("name", k -> k.keyword(kw -> kw))))));
                    admin.index(i -> i.index(px + "-users")
                            .id("u1")
                            .document(Map.of("name", "new"))
                            .refresh(Refresh.True));
                    for (int n = 0; n < 20; n++) {
                        String id = "p" + n;
                        admin.index(i -> i.index(px + "-posts")
                                .id(id)
                                .document(Map.of("user", Map.of("id", "u1", "name", "old"))));
                    }
                    admin.indices().refresh(r -> r.index(px + "-posts"));
                },
                px -> {
                    // No job may claim it finished: whatever the checkpoint holds (if it could be written) is not
                    // COMPLETED.
                    if (admin.indices()
                            .exists(e -> e.index(px + "-checkpoints"))
                            .value()) {
                        Propagator p = Propagator.of(
                                b -> b.client(admin).relation(relation(px)).checkpointIndex(px + "-checkpoints"));
                        for (Checkpoint c : p.unfinished()) {
                            assertThat(c.state()).isNotEqualTo(JobState.COMPLETED);
                        }
                    }
                });
    }

    @TestFactory
    Stream<DynamicTest> materializedViews() {
        return cases(
                "views",
                (es, px) -> {
                    MaterializedView<ObjectNode, ObjectNode> views = views(es, px);
                    views.changeSource(
                            "p1",
                            () -> admin.index(i -> i.index(px + "-photos")
                                    .id("p1")
                                    .document(Map.of("title", "sunset", "user_id", "u1"))));
                    assertThat(views.repair().rebuild().failed()).isZero();
                    admin.indices().refresh(r -> r.index(px + "-view"));
                    assertThat(admin.get(g -> g.index(px + "-view").id("p1"), ObjectNode.class)
                                    .source()
                                    .path("user_gender")
                                    .asText())
                            .isEqualTo("female");
                },
                px -> {
                    admin.indices().create(c -> c.index(px + "-photos"));
                    admin.index(i -> i.index(px + "-users")
                            .id("u1")
                            .document(Map.of("gender", "female"))
                            .refresh(Refresh.True));
                },
                px -> {});
    }

    @TestFactory
    Stream<DynamicTest> fileTrees() {
        return cases(
                "files",
                (es, px) -> {
                    try (TreeLocks locks =
                            TreeLocks.of(b -> b.client(es).index(px + "-fs").backend(TreeLocks.Backend.PLUGIN))) {
                        FileTree fs =
                                FileTree.of(b -> b.client(es).index(px + "-fs").locks(locks));
                        fs.write("/clinton/projects/README.txt", "about elasticsearch");
                        RenameResult renamed = fs.renameDirectory("/clinton", "/zach");
                        assertThat(renamed.status()).isEqualTo(RenameResult.Status.DONE);
                        assertThat(fs.read("/zach/projects/README.txt")).isPresent();
                    }
                },
                px -> {
                    try (TreeLocks adminLocks =
                            TreeLocks.of(b -> b.client(admin).index(px + "-fs").backend(TreeLocks.Backend.PLUGIN))) {
                        FileTree.of(b -> b.client(admin).index(px + "-fs").locks(adminLocks))
                                .createIndex();
                    }
                },
                px -> assertNoLocks(TreeLocks.Backend.PLUGIN, px + "-fs", null));
    }

    @Test
    void theLockTableIsOutOfReachOfEveryUserEvenWithEveryPrivilegeOnEveryIndex() throws IOException {
        admin.indices().create(c -> c.index("l-table"));
        try (TreeLocks locks =
                TreeLocks.of(b -> b.client(admin).index("l-table").backend(TreeLocks.Backend.PLUGIN))) {
            try (TreeLock held = locks.acquire("/x", LockMode.EXCLUSIVE).orThrow()) {
                ElasticsearchClient everything = cluster.clientAs("everything");
                assertThatThrownBy(() -> everything.search(q -> q.index(".esrel-treelocks-1"), ObjectNode.class))
                        .hasMessageContaining("unauthorized");
                assertThatThrownBy(() -> everything.index(
                                i -> i.index(".esrel-treelocks-1").id("l-table").document(Map.of())))
                        .hasMessageContaining("reserved for system operations");
                assertThatThrownBy(() -> admin.search(q -> q.index(".esrel-treelocks-1"), ObjectNode.class))
                        .as("not even a superuser reads it directly")
                        .hasMessageContaining("reserved for system operations");
                assertThat(held.token()).isPositive();
            }
        }
    }

    @Test
    void aUserWithPrivilegesOnOneIndexCannotLockOrListAnother() throws IOException {
        admin.indices().create(c -> c.index("locks-other-fs"));
        try (TreeLocks locks = TreeLocks.of(
                b -> b.client(cluster.clientAs("locks")).index("locks-other-fs").backend(TreeLocks.Backend.PLUGIN))) {
            assertThatThrownBy(() -> locks.acquire("/a", LockMode.SHARED)).satisfies(e -> assertForbidden(e, "write"));
            assertThatThrownBy(() -> locks.list(TreePath.of("/"))).satisfies(e -> assertForbidden(e, "read"));
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Privileges on one index of a capability: {@code <feature>-<variant>-<suffix>}. */
    record Need(String suffix, List<String> privileges) {}

    static Need need(String suffix, String... privileges) {
        return new Need(suffix, List.of(privileges));
    }

    /** A capability and every privilege it needs. */
    record Feature(String name, List<String> cluster, List<Need> needs) {
        Feature(String name, List<String> cluster, Need... needs) {
            this(name, cluster, List.of(needs));
        }

        /** The variants: the full set first (named after the feature), then one per privilege left out. */
        Map<String, Variant> variants() {
            Map<String, Variant> variants = new LinkedHashMap<>();
            variants.put(name, new Variant(name, cluster, needs, null));
            for (String c : cluster) {
                List<String> rest = new ArrayList<>(cluster);
                rest.remove(c);
                String user = name + "-without-" + c;
                variants.put(user, new Variant(user, rest, needs, c));
            }
            for (Need need : needs) {
                for (String privilege : need.privileges()) {
                    List<Need> fewer = new ArrayList<>();
                    for (Need n : needs) {
                        List<String> ps = new ArrayList<>(n.privileges());
                        if (n == need) {
                            ps.remove(privilege);
                        }
                        fewer.add(new Need(n.suffix(), ps));
                    }
                    String user = name + "-without-" + need.suffix() + "-" + privilege.replace('_', '-');
                    variants.put(user, new Variant(user, cluster, fewer, privilege));
                }
            }
            return variants;
        }
    }

    /** A user of a feature: its index prefix is its name; {@code missing} is the privilege it lacks, if any. */
    record Variant(String user, List<String> cluster, List<Need> needs, String missing) {
        String roleJson() {
            List<String> entries = new ArrayList<>();
            for (Need need : needs) {
                if (!need.privileges().isEmpty()) {
                    entries.add("{\"names\": [\"" + user + "-" + need.suffix() + "\"], \"privileges\": [\""
                            + String.join("\", \"", need.privileges()) + "\"]}");
                }
            }
            return "{\"cluster\": [" + (cluster.isEmpty() ? "" : "\"" + String.join("\", \"", cluster) + "\"")
                    + "], \"indices\": [" + String.join(", ", entries) + "]}";
        }
    }

    static Security security() {
        return Security.of(s -> {
            for (Feature feature : FEATURES) {
                for (Variant v : feature.variants().values()) {
                    s.role(v.user(), v.roleJson()).user(v.user(), PASSWORD, v.user());
                }
            }
            return s.role("everything", "{\"indices\": [{\"names\": [\"*\"], \"privileges\": [\"all\"]}]}")
                    .user("everything", PASSWORD, "everything");
        });
    }

    interface Operation {
        void run(ElasticsearchClient es, String prefix) throws Exception;
    }

    interface Step {
        void run(String prefix) throws Exception;
    }

    /** One test per variant: fixture as admin, the operation as the variant's user, then the checks. */
    private Stream<DynamicTest> cases(String feature, Operation operation, Step fixture, Step nothingHalfWritten) {
        Feature f = FEATURES.stream()
                .filter(x -> x.name().equals(feature))
                .findFirst()
                .orElseThrow();
        return f.variants().values().stream()
                .map(v -> DynamicTest.dynamicTest(
                        v.missing() == null
                                ? v.user() + " succeeds with exactly " + describe(f)
                                : v.user() + " is refused",
                        () -> {
                            fixture.run(v.user());
                            ElasticsearchClient es = cluster.clientAs(v.user());
                            if (v.missing() == null) {
                                operation.run(es, v.user());
                            } else {
                                assertThatThrownBy(() -> operation.run(es, v.user()))
                                        .satisfies(e -> assertForbidden(e, v.missing()));
                                nothingHalfWritten.run(v.user());
                            }
                        }));
    }

    private static String describe(Feature f) {
        StringBuilder s = new StringBuilder();
        f.cluster().forEach(c -> s.append("cluster ").append(c).append("; "));
        f.needs()
                .forEach(n ->
                        s.append(n.suffix()).append(' ').append(n.privileges()).append("; "));
        return s.toString().trim();
    }

    private void assertNoLocks(TreeLocks.Backend backend, String index, String lockIndex) throws IOException {
        if (lockIndex != null
                && !admin.indices().exists(e -> e.index(lockIndex)).value()) {
            return; // never created: nothing can be held
        }
        try (TreeLocks locks = TreeLocks.of(b -> {
            b.client(admin).index(index).backend(backend);
            return lockIndex == null ? b : b.lockIndex(lockIndex);
        })) {
            assertThat(locks.list(TreePath.of("/")))
                    .as("no lock left held in %s", index)
                    .isEmpty();
        }
    }

    private static Relation relation(String px) {
        return Relation.of(r -> r.name("post-author")
                .parentIndex(px + "-users")
                .childIndex(px + "-posts")
                .parentIdField("user.id")
                .copy("name", "user.name"));
    }

    private MaterializedView<ObjectNode, ObjectNode> views(ElasticsearchClient es, String px) {
        return MaterializedView.of(
                ObjectNode.class,
                ObjectNode.class,
                v -> v.client(es)
                        .name("photos")
                        .sourceIndex(px + "-photos")
                        .parentIndex(px + "-users")
                        .parentIdField("user_id")
                        .viewIndex(px + "-view")
                        .stateIndex(px + "-state")
                        .compose((photo, user) -> new TreeMap<>(Map.of(
                                "title",
                                photo.path("title").asText(),
                                "user_gender",
                                user == null ? "unknown" : user.path("gender").asText()))));
    }

    /** A document with a vote count. */
    record Votes(int votes) {}

    /** The failure is esrel's own, says 403, and names the privilege the user lacks. */
    static void assertForbidden(Throwable e, String privilege) {
        Throwable esrel = e;
        if (!esrel.getClass().getName().startsWith("io.github.esrel.") && esrel.getCause() != null) {
            esrel = esrel.getCause(); // a lock released by close() reports through the try-with-resources
        }
        assertThat(esrel.getClass().getName()).as("an esrel exception: %s", e).startsWith("io.github.esrel.");
        assertThat(status(esrel)).as("the status of %s", esrel).isEqualTo(403);
        assertThat(esrel.getMessage()).contains("unauthorized").contains(privilege);
    }

    static int status(Throwable e) {
        try {
            return (int) e.getClass().getMethod("status").invoke(e);
        } catch (ReflectiveOperationException notThere) {
            throw new AssertionError(e.getClass().getName() + " has no status(): " + e, e);
        }
    }

    @SuppressWarnings("unused")
    private static void unused(PropagationException e, Optional<?> o) {}
}
