package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ParentCountsTest {

    @Test
    void shouldForgetACountAfterAMinute() {
        AtomicLong now = new AtomicLong(1_000);
        ParentCounts counts = new ParentCounts(now::get);
        assertThat(counts.get("users")).isEqualTo(-1);
        counts.put("users", 20_000);
        assertThat(counts.get("users")).isEqualTo(20_000);
        assertThat(counts.get("posts")).isEqualTo(-1);
        now.addAndGet(ParentCounts.MAX_AGE_NANOS);
        assertThat(counts.get("users")).isEqualTo(20_000);
        now.incrementAndGet();
        assertThat(counts.get("users")).as("too old").isEqualTo(-1);
        counts.put("users", -1);
        assertThat(counts.get("users")).as("an unknown count is not cached").isEqualTo(-1);
    }

    @Test
    void shouldRememberTheMatchesOfRecentConditionsWithinItsBound() {
        AtomicLong now = new AtomicLong(1_000);
        ParentCounts counts = new ParentCounts(now::get);
        assertThat(counts.matched("users {\"term\":{\"country\":\"nl\"}}")).isEqualTo(-1);
        counts.putMatched("users {\"term\":{\"country\":\"nl\"}}", 10_000);
        assertThat(counts.matched("users {\"term\":{\"country\":\"nl\"}}")).isEqualTo(10_000);
        now.addAndGet(ParentCounts.MAX_AGE_NANOS + 1);
        assertThat(counts.matched("users {\"term\":{\"country\":\"nl\"}}"))
                .as("too old")
                .isEqualTo(-1);

        counts.putMatched("c0", 1);
        for (int i = 1; i <= ParentCounts.MAX_CONDITIONS; i++) {
            counts.matched("c0"); // the most recently used stays
            counts.putMatched("c" + i, i);
        }
        assertThat(counts.matched("c0")).isEqualTo(1);
        assertThat(counts.matched("c1"))
                .as("the least recently used is forgotten")
                .isEqualTo(-1);
        assertThat(counts.matched("c" + ParentCounts.MAX_CONDITIONS)).isEqualTo(ParentCounts.MAX_CONDITIONS);
        counts.putMatched("c2", -1);
        assertThat(counts.matched("c2")).as("an unknown count replaces nothing").isEqualTo(2);
    }
}
