package io.github.esrel.join;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RecentKeysTest {

    @Test
    void shouldReturnTheKeysOfAsManyChildrenAsTheNextReadReads() {
        RecentKeys recent = new RecentKeys(() -> 0);
        // Five children: two by u1, one by u2 and u3 (both keys of one child), one by u4.
        recent.put("q", List.of(List.of("u1"), List.of("u1"), List.of("u2", "u3"), List.of("u1"), List.of("u4")));
        assertThat(recent.get("q", 100)).containsExactly("u1", "u2", "u3", "u4");
        assertThat(recent.get("q", 5)).containsExactly("u1", "u2", "u3", "u4");
        assertThat(recent.get("q", 4)).containsExactly("u1", "u2", "u3");
        assertThat(recent.get("q", 2)).containsExactly("u1");
        assertThat(recent.get("q", 0)).isNull();
        assertThat(recent.get("another question", 5)).isNull();
    }

    @Test
    void shouldForgetAfterAMinute() {
        AtomicLong now = new AtomicLong();
        RecentKeys recent = new RecentKeys(now::get);
        recent.put("q", List.of(List.of("u1")));
        now.set(RecentKeys.MAX_AGE_NANOS);
        assertThat(recent.get("q", 1)).containsExactly("u1");
        now.set(RecentKeys.MAX_AGE_NANOS + 1);
        assertThat(recent.get("q", 1)).isNull();
    }

    @Test
    void shouldForgetAQuestionWhoseReadFoundNoKeyOrTooManyToCheckAhead() {
        RecentKeys recent = new RecentKeys(() -> 0);
        recent.put("q", List.of(List.of("u1")));
        recent.put("q", List.of(List.of()));
        assertThat(recent.get("q", 1)).isNull();

        recent.put("q", List.of(List.of("u1")));
        List<List<String>> many = new ArrayList<>();
        IntStream.rangeClosed(0, RecentKeys.MAX_KEYS).forEach(i -> many.add(List.of("u" + i)));
        recent.put("q", many);
        assertThat(recent.get("q", many.size())).isNull();
    }
}
