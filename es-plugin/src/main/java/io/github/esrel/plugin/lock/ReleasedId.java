package io.github.esrel.plugin.lock;

import java.io.IOException;
import java.util.Map;
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
record ReleasedId(long nonce, long token, long untilMillis) {

    /** A release by grant id ({@code token} 0) matches any release of that id; a release by token, its token. */
    boolean matches(long token) {
        return token == 0 || this.token == token;
    }

    boolean forgottenAt(long now) {
        return now >= untilMillis;
    }

    XContentBuilder toXContent(XContentBuilder builder) throws IOException {
        return builder.startObject()
                .field("nonce", nonce)
                .field("token", token)
                .field("until", untilMillis)
                .endObject();
    }

    /** Reads one as {@link #toXContent} wrote it; a malformed one throws a {@code RuntimeException}. */
    static ReleasedId fromSource(Object stored) {
        Map<?, ?> m = (Map<?, ?>) stored;
        return new ReleasedId(
                ((Number) m.get("nonce")).longValue(),
                ((Number) m.get("token")).longValue(),
                ((Number) m.get("until")).longValue());
    }
}
