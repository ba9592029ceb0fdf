package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldValue;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where the next page of a join starts: for {@link Join#childrenOf}, after a given parent of a point in
 * time (PIT) on the parent index; for {@link Join#childrenWhereParent}, after a given child of a point in
 * time on the child index. Immutable; {@link #token()} makes it a URL-safe string for a "next page" link
 * and {@link #parse(String)} reads it back. A cursor continues only the kind of join it came from.
 *
 * <p>The PIT is opened when a join first needs a second page and closed when the last page has been
 * read. A cursor that is abandoned keeps the PIT until its keep-alive runs out
 * ({@link Join.Builder#pitKeepAlive}); {@link Join#close(JoinCursor)} releases it at once. A cursor
 * used after its PIT expired fails with a {@link JoinException} (status 404).
 */
public final class JoinCursor {

    /** The side of the join a cursor pages through. */
    enum Side {
        /** {@link Join#childrenOf}: pages of parents. */
        PARENTS("p", "childrenOf"),
        /** {@link Join#childrenWhereParent}: pages of children. */
        CHILDREN("c", "childrenWhereParent");

        final String code;
        final String join;

        Side(String code, String join) {
            this.code = code;
            this.join = join;
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Side side;
    private final @Nullable String pitId;
    private final List<FieldValue> searchAfter;
    private final int offset;

    JoinCursor(@Nullable String pitId, @Nullable List<FieldValue> searchAfter, int offset) {
        this(Side.PARENTS, pitId, searchAfter, offset);
    }

    private JoinCursor(Side side, @Nullable String pitId, @Nullable List<FieldValue> searchAfter, int offset) {
        this.side = side;
        this.pitId = pitId;
        this.searchAfter = searchAfter == null ? List.of() : List.copyOf(searchAfter);
        this.offset = offset;
    }

    /** A cursor of {@link Join#childrenWhereParent}. */
    static JoinCursor children(@Nullable String pitId, List<FieldValue> searchAfter, int offset) {
        return new JoinCursor(Side.CHILDREN, pitId, searchAfter, offset);
    }

    /** Refuses a cursor of the other kind of join, which would page through the wrong index. */
    void requireSide(Side expected, String join) {
        if (side != expected) {
            throw new IllegalArgumentException("this cursor continues " + side.join + ", not " + join
                    + ": pass the next() of a " + join + " result");
        }
    }

    /**
     * Returns the point in time the next pages read.
     *
     * @return the PIT id, or {@code null} if none is open yet
     */
    public @Nullable String pitId() {
        return pitId;
    }

    /**
     * Returns where the next page starts in the parent sort (or the child sort).
     *
     * @return the sort values of the last parent (or child) returned, for {@code search_after}; empty
     *     before the first PIT page
     */
    public List<FieldValue> searchAfter() {
        return searchAfter;
    }

    /**
     * Returns how many parents ({@link Join#childrenOf}) or children ({@link Join#childrenWhereParent}) to
     * skip at the start of the PIT.
     *
     * @return the number returned before the PIT was opened, 0 or more
     */
    public int offset() {
        return offset;
    }

    /**
     * Encodes this cursor for a "next page" link.
     *
     * @return this cursor as a URL-safe base64 string without padding, which {@link #parse(String)}
     *     reads back
     * @throws IllegalStateException if a sort value is not a long, double, boolean, string or null
     */
    public String token() {
        ArrayNode a = JSON.createArrayNode();
        a.add(pitId);
        a.add(offset);
        ArrayNode values = a.addArray();
        a.add(side.code);
        for (FieldValue v : searchAfter) {
            switch (v._kind()) {
                case Long -> values.add(v.longValue());
                case Double -> values.add(v.doubleValue());
                case Boolean -> values.add(v.booleanValue());
                case String -> values.add(v.stringValue());
                case Null -> values.addNull();
                default -> throw new IllegalStateException("cannot encode sort value " + v);
            }
        }
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(a.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads a cursor written by {@link #token()}.
     *
     * @param token a string from {@link #token()}
     * @return the cursor the token encodes
     * @throws NullPointerException if {@code token} is {@code null}
     * @throws IllegalArgumentException if the token is not one
     */
    public static JoinCursor parse(String token) {
        Objects.requireNonNull(token, "token cannot be null");
        try {
            JsonNode a = JSON.readTree(Base64.getUrlDecoder().decode(token));
            if (a == null || !a.isArray() || a.size() != 4 || !a.get(2).isArray()) {
                throw new IllegalArgumentException("not a join cursor token: " + token);
            }
            Side side = Side.PARENTS.code.equals(a.get(3).asText())
                    ? Side.PARENTS
                    : Side.CHILDREN.code.equals(a.get(3).asText()) ? Side.CHILDREN : null;
            if (side == null) {
                throw new IllegalArgumentException("not a join cursor token: " + token);
            }
            List<FieldValue> values = new ArrayList<>();
            for (JsonNode v : a.get(2)) {
                if (v.isNull()) {
                    values.add(FieldValue.NULL);
                } else if (v.isIntegralNumber()) {
                    values.add(FieldValue.of(v.longValue()));
                } else if (v.isNumber()) {
                    values.add(FieldValue.of(v.doubleValue()));
                } else if (v.isBoolean()) {
                    values.add(FieldValue.of(v.booleanValue()));
                } else {
                    values.add(FieldValue.of(v.asText()));
                }
            }
            return new JoinCursor(
                    side,
                    a.get(0).isNull() ? null : a.get(0).asText(),
                    values,
                    a.get(1).asInt());
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("not a join cursor token: " + token, e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinCursor c
                && side == c.side
                && Objects.equals(pitId, c.pitId)
                && offset == c.offset
                && render(searchAfter).equals(render(c.searchAfter));
    }

    @Override
    public int hashCode() {
        return Objects.hash(side, pitId, offset, render(searchAfter));
    }

    /** FieldValue has no equals or toString of its own. */
    private static List<String> render(List<FieldValue> values) {
        return values.stream().map(v -> v._kind() + ":" + v._get()).toList();
    }

    @Override
    public String toString() {
        return "JoinCursor{" + side.join + ", pit="
                + (pitId == null ? "none" : pitId.substring(0, Math.min(12, pitId.length())) + "...") + ", after="
                + render(searchAfter) + ", offset=" + offset + '}';
    }
}
