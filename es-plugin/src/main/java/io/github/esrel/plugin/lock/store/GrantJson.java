package io.github.esrel.plugin.lock.store;

import io.github.esrel.plugin.lock.grant.AuthenticatedUser;
import io.github.esrel.plugin.lock.grant.Grant;
import io.github.esrel.plugin.lock.grant.LockMode;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.xcontent.XContentBuilder;
import org.jspecify.annotations.Nullable;

/**
 * One grant as every document of the lock index stores it: {@code {"path": "/a/b", "mode": "exclusive", "owner":
 * "worker-7", "token": 1764504000000017, "expires_at": 1764504060123, "nonce": -4102567348899437101}}, and
 * {@code "bound_user"} and {@code "bound_realm"} for a grant bound to a user. One-document tables, heads and grant
 * documents all hold grants this way, so that every plugin since esrel 0.1 reads every grant it finds.
 */
final class GrantJson {

    private GrantJson() {}

    /** Writes one grant as the stored object. */
    static XContentBuilder write(XContentBuilder builder, Grant g) throws IOException {
        builder.startObject()
                .field("path", g.path())
                .field("mode", g.mode().jsonName())
                .field("owner", g.owner())
                .field("token", g.token())
                .field("expires_at", g.expiresAtMillis())
                .field("nonce", g.nonce());
        if (g.boundTo() != null) {
            builder.field("bound_user", g.boundTo().name())
                    .field("bound_realm", g.boundTo().realm());
        }
        return builder.endObject();
    }

    /** Reads one grant as {@link #write} stored it; a malformed one throws a {@code RuntimeException}. */
    static Grant read(@Nullable Object stored) {
        Map<?, ?> g = (Map<?, ?>) Objects.requireNonNull(stored, "grant");
        return new Grant(
                (String) Objects.requireNonNull(g.get("path"), "path"),
                LockMode.parse((String) Objects.requireNonNull(g.get("mode"), "mode")),
                (String) Objects.requireNonNull(g.get("owner"), "owner"),
                ((Number) Objects.requireNonNull(g.get("token"), "token")).longValue(),
                ((Number) Objects.requireNonNull(g.get("expires_at"), "expires_at")).longValue(),
                ((Number) Objects.requireNonNull(g.get("nonce"), "nonce")).longValue(),
                g.get("bound_user") == null
                        ? null
                        : new AuthenticatedUser((String) g.get("bound_user"), (String)
                                Objects.requireNonNull(g.get("bound_realm"), "bound_realm")));
    }
}
