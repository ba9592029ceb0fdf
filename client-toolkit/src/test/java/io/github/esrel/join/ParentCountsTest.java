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
}
