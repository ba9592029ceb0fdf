package io.github.esrel.plugin.lock.grant;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import org.elasticsearch.xcontent.XContentBuilder;

/**
 * A grant id that was released (see {@link GrantIds}): its nonce, the token of the grant its release ended, and
 * until when it is remembered. Stored as {@code {"nonce": -41025..., "token": 1764504000000017, "until":
 * 1764504120123}}.
 *
 * @param nonce       the nonce of the grant id that asked for the release ({@link GrantIds#nonce})
 * @param token       the token of the grant the release ended; 0 when the release by grant id found none
 * @param untilMillis remembered while {@code now < until} (epoch milliseconds, the releasing node's clock)
 */
public record ReleasedId(long nonce, long token, long untilMillis) {

    /**
     * Whether a release that names its grant by {@code token} is the release this id remembers: a release by grant
     * id ({@code token} 0) matches any release of that id; a release by token, its token.
     *
     * @param token the token the release names, or 0 for a release by grant id alone
     * @return {@code true} if the release is the one remembered
     */
    public boolean matches(long token) {
        return token == 0 || this.token == token;
    }

    /**
     * Whether this id is forgotten at {@code now}.
     *
     * @param now the current time, epoch milliseconds
     * @return {@code true} once its time to be remembered is over
     */
    public boolean forgottenAt(long now) {
        return now >= untilMillis;
    }

    /**
     * Writes the stored object.
     *
     * @param builder the builder to write to
     * @return {@code builder}
     * @throws IOException if the builder fails to write
     */
    public XContentBuilder toXContent(XContentBuilder builder) throws IOException {
        return builder.startObject()
                .field("nonce", nonce)
                .field("token", token)
                .field("until", untilMillis)
                .endObject();
    }

    /**
     * Reads one as {@link #toXContent} wrote it.
     *
     * @param stored the stored object, as a map
     * @return the released grant id
     * @throws RuntimeException if it is malformed
     */
    public static ReleasedId fromSource(Object stored) {
        Map<?, ?> m = (Map<?, ?>) stored;
        return new ReleasedId(
                ((Number) Objects.requireNonNull(m.get("nonce"), "nonce")).longValue(),
                ((Number) Objects.requireNonNull(m.get("token"), "token")).longValue(),
                ((Number) Objects.requireNonNull(m.get("until"), "until")).longValue());
    }
}
