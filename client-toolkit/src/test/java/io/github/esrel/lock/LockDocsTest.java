package io.github.esrel.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The pure parts of the lock documents: ids and fencing tokens. */
class LockDocsTest {

    @Test
    void shouldIssueTokensAboveTheLastAndTheClock() {
        long now = 1_764_504_000_000L;
        assertThat(LockDocs.nextToken(0, now)).isEqualTo(now * 1000);
        assertThat(LockDocs.nextToken(now * 1000, now)).isEqualTo(now * 1000 + 1);
        // A clock that went back never takes the token back.
        assertThat(LockDocs.nextToken(now * 1000 + 5, now - 60_000)).isEqualTo(now * 1000 + 6);
        // A lost lock document starts above the tokens of an earlier millisecond, as long as fewer than
        // 1000 were issued in it (the documented assumption) and the clock did not go back.
        assertThat(LockDocs.nextToken(0, now + 1)).isGreaterThan(LockDocs.nextToken(now * 1000 + 998, now));
        assertThat(LockDocs.nextToken(0, now + 1)).isEqualTo(LockDocs.nextToken(now * 1000 + 999, now));
        assertThat(LockDocs.nextToken(7, 0)).isEqualTo(8);
        assertThat(LockDocs.nextToken(7, Long.MAX_VALUE)).isEqualTo(8);
        assertThatThrownBy(() -> LockDocs.nextToken(Long.MAX_VALUE, now)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void shouldKeepDocumentIdsWithinTheLimitAndApart() {
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, "/a")).isEqualTo("fs:/a");
        assertThat(LockDocs.docId("fs", LockDocs.KIND_DOC, "/a")).isEqualTo("fs:doc:/a");
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, "/")).isEqualTo("fs:/");
        String longKey = "/" + "é".repeat(300);
        String id = LockDocs.docId("fs", LockDocs.KIND_PATH, longKey);
        assertThat(id).startsWith("fs:#").hasSize(4 + 64);
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, longKey + "x")).isNotEqualTo(id);
        assertThat(LockDocs.docId("fs", LockDocs.KIND_DOC, "é".repeat(300))).startsWith("fs:doc:#");
        // Namespaces are index names, which cannot contain ':'; paths start with '/': no collisions.
        assertThat(LockDocs.docId("fs", LockDocs.KIND_PATH, "/doc:x"))
                .isNotEqualTo(LockDocs.docId("fs", LockDocs.KIND_DOC, "x"));
    }
}
