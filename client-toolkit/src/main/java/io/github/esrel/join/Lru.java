package io.github.esrel.join;

import java.util.LinkedHashMap;
import java.util.Map;

/** The least-recently-used maps of what a {@link Join} remembers between calls ({@link ChildOrderBounds}, {@link RecentKeys}). */
final class Lru {

    private Lru() {}

    /**
     * An access-ordered map that forgets its least recently used entry beyond {@code max}. Not thread-safe: guard it.
     *
     * @param max the most entries kept
     */
    static <V> Map<String, V> map(int max) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > max;
            }
        };
    }
}
