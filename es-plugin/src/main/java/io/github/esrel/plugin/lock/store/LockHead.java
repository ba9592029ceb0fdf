package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.LockMode;
import io.github.esrel.plugin.lock.grant.ReleasedId;
import io.github.esrel.plugin.lock.grant.TreePath;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The head document of a namespace in the lock index (its id is the namespace): the one document whose
 * compare-and-set orders every decision of the namespace, holding the changes of the round that wrote it and of a
 * few rounds before it ({@link #earlier}), never the table. The grants themselves are one document each
 * ({@link GrantStore}).
 *
 * <p>It keeps the field names of the one-document table it replaces ({@link TableDocument}: {@code last_token},
 * {@code grants}) and stores in {@code grants} a single {@link #FENCE}: an exclusive grant on the root that never
 * expires. A node still running a plugin that reads the whole table from this document (a rolling upgrade, or a node
 * set to the table store) therefore sees every path locked and grants nothing in a namespace the grant store has
 * taken over, instead of an empty table.
 *
 * @param round       the version of the grant documents this round's changes are written with: strictly
 *                    increasing, time-based as fencing tokens are, so it keeps increasing if the lock index is lost
 * @param writeId     random, unique to this write: a node's cached table is current only if it is this one
 * @param earlier     the rounds before this one, oldest first, as far back as {@link #MAX_EARLIER_ROUNDS} and
 *                    {@link #MAX_EARLIER_CHANGES} allow: a node whose table is at one of them catches up from this
 *                    document alone, so that nodes taking turns on a namespace read no more than the node that
 *                    wrote last (their grant documents are stored already: only this round's may not be)
 * @param changes     what this round changed, not yet (or not certainly) in the grant documents: grants put and
 *                    removed, and the grant ids its releases remembered ({@code released}, absent when none: a
 *                    plugin that does not know them reads the rest)
 */
record LockHead(long round, String writeId, List<Step> earlier, RoundChanges changes) {

    /** Earlier rounds a head keeps at most. */
    static final int MAX_EARLIER_ROUNDS = 8;
    /** Grants put or removed by the earlier rounds a head keeps, at most (a round with more is not kept). */
    static final int MAX_EARLIER_CHANGES = 32;

    /** One round: the {@code writeId} of its head and what it changed. */
    record Step(String writeId, RoundChanges changes) {
        Step {
            Objects.requireNonNull(writeId, "writeId cannot be null");
            Objects.requireNonNull(changes, "changes cannot be null");
        }

        int size() {
            return changes.put().size()
                    + changes.removed().size()
                    + changes.released().size();
        }
    }

    /** The value of {@code kind} that tells a head from a one-document table and from a grant document. */
    static final String KIND = "head";

    /** What a node reading the whole table from this document sees: everything locked. */
    static final Grant FENCE = new Grant(
            TreePath.ROOT,
            LockMode.EXCLUSIVE,
            "esrel: this namespace's locks are kept per grant by a newer esrel plugin; upgrade this node",
            0,
            Long.MAX_VALUE,
            0);

    LockHead {
        Objects.requireNonNull(writeId, "writeId cannot be null");
        Objects.requireNonNull(changes, "changes cannot be null");
        earlier = List.copyOf(earlier);
    }

    /** This round as a step of the next head's {@link #earlier}. */
    Step step() {
        return new Step(writeId, changes);
    }

    /**
     * The {@link #earlier} of the head after the one with {@code earlier} and {@code last} (its own round): the
     * oldest dropped until both limits hold.
     */
    static List<Step> earlierAfter(List<Step> earlier, Step last) {
        List<Step> steps = new ArrayList<>(earlier);
        steps.add(last);
        int changes = steps.stream().mapToInt(Step::size).sum();
        int from = 0;
        while (from < steps.size() && (steps.size() - from > MAX_EARLIER_ROUNDS || changes > MAX_EARLIER_CHANGES)) {
            changes -= steps.get(from).size();
            from++;
        }
        return List.copyOf(steps.subList(from, steps.size()));
    }

    /**
     * The rounds after the one whose head had {@code writeId}, oldest first, ending with this one; null if this
     * head does not go back to it (the table at it must be rebuilt).
     */
    @Nullable
    List<Step> stepsAfter(String writeId) {
        for (int i = earlier.size() - 1; i >= 0; i--) {
            if (earlier.get(i).writeId().equals(writeId)) {
                List<Step> steps = new ArrayList<>(earlier.subList(i + 1, earlier.size()));
                steps.add(step());
                return steps;
            }
        }
        return null;
    }

    /** Whether {@code source} is a head document (else it is a one-document table of an older plugin). */
    static boolean isHead(Map<String, Object> source) {
        return KIND.equals(source.get("kind"));
    }

    XContentBuilder toXContent(XContentBuilder builder, String namespace, long now) throws IOException {
        builder.startObject();
        builder.field("kind", KIND);
        builder.field("namespace", namespace);
        builder.field("round", round);
        builder.field("write_id", writeId);
        builder.field("last_token", changes.lastToken());
        builder.field("updated_at", now);
        builder.startArray("grants");
        GrantJson.write(builder, FENCE);
        builder.endArray();
        builder.field("changes");
        writeChanges(builder, changes);
        builder.startArray("earlier");
        for (Step step : earlier) {
            builder.startObject().field("write_id", step.writeId()).field("changes");
            writeChanges(builder, step.changes());
            builder.endObject();
        }
        builder.endArray();
        return builder.endObject();
    }

    private static void writeChanges(XContentBuilder builder, RoundChanges changes) throws IOException {
        builder.startObject();
        builder.field("last_token", changes.lastToken());
        builder.startArray("put");
        for (Grant g : changes.put()) {
            GrantJson.write(builder, g);
        }
        builder.endArray();
        builder.startArray("removed");
        for (long token : changes.removed()) {
            builder.value(token);
        }
        builder.endArray();
        if (changes.released().isEmpty() == false) {
            builder.startArray("released");
            for (ReleasedId r : changes.released()) {
                r.toXContent(builder);
            }
            builder.endArray();
        }
        builder.endObject();
    }

    private static RoundChanges readChanges(@Nullable Object source, long lastToken) {
        Map<?, ?> changes = (Map<?, ?>) Objects.requireNonNull(source, "changes");
        List<Grant> put = new ArrayList<>();
        for (Object g : (List<?>) Objects.requireNonNull(changes.get("put"), "put")) {
            put.add(GrantJson.read(g));
        }
        List<Long> removed = new ArrayList<>();
        for (Object token : (List<?>) Objects.requireNonNull(changes.get("removed"), "removed")) {
            removed.add(((Number) token).longValue());
        }
        List<ReleasedId> released = new ArrayList<>();
        if (changes.get("released") instanceof List<?> ids) {
            for (Object id : ids) {
                released.add(ReleasedId.fromSource(id));
            }
        }
        Object stepLastToken = changes.get("last_token");
        return new RoundChanges(
                stepLastToken == null ? lastToken : ((Number) stepLastToken).longValue(), put, removed, released);
    }

    /**
     * Reads a head document.
     *
     * @throws IllegalStateException if it is not one (only the plugin writes the lock index)
     */
    static LockHead fromSource(@Nullable Map<String, Object> stored) {
        try {
            Map<String, Object> source = Objects.requireNonNull(stored, "no source");
            long lastToken = ((Number) Objects.requireNonNull(source.get("last_token"), "last_token")).longValue();
            List<Step> earlier = new ArrayList<>();
            for (Object step : (List<?>) Objects.requireNonNull(source.get("earlier"), "earlier")) {
                Map<?, ?> s = (Map<?, ?>) step;
                earlier.add(new Step(
                        (String) Objects.requireNonNull(s.get("write_id"), "write_id"),
                        readChanges(s.get("changes"), lastToken)));
            }
            return new LockHead(
                    ((Number) Objects.requireNonNull(source.get("round"), "round")).longValue(),
                    (String) Objects.requireNonNull(source.get("write_id"), "write_id"),
                    earlier,
                    readChanges(source.get("changes"), lastToken));
        } catch (RuntimeException e) {
            throw new IllegalStateException("the lock head document is corrupt: " + e.getMessage(), e);
        }
    }
}
