package io.github.esrel.join;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The parent keys children-first checked in the last minute, per question, so that the same question asked again
 * checks them in its first round trip instead of a second one.
 *
 * <p>Why: children-first reads the first children in the child order, then asks which of their parents match: two
 * round trips, the second waiting on the first for the keys. Asked again, the first children are mostly the same
 * children (the newest posts change slowly), so their keys are mostly known before the read. The first round trip
 * then carries both the read of the children and the check of the keys the last read found, side by side in one
 * {@code _msearch}. Nothing is taken on trust: the check runs now, against the parents as they are now, exactly as the
 * second round trip would have; it is only sent before the keys it checks are known. The keys of children the last read
 * did not have are checked in a second round trip, as before, but only they; keys checked in vain cost a few
 * stored-field reads. Keys-first keeps the keys of its last answer here too, under questions of its own
 * ({@code ChildrenWhereParent}), and the parents on its page ({@link PageParents}, for {@link #MAX_PAGES} questions:
 * they hold sources). Entries are kept for {@link #MAX_AGE_NANOS}.
 */
final class RecentKeys {

    /** One minute, as the parent counts and the child order bounds. */
    static final long MAX_AGE_NANOS = ChildOrderBounds.MAX_AGE_NANOS;
    /** Questions whose keys are kept, the least recently used forgotten first. */
    static final int MAX_QUESTIONS = 1_000;
    /** More keys than this are not checked ahead: a check that large costs more than the round trip it saves. */
    static final int MAX_KEYS = 512;
    /** Questions whose page parents are kept ({@link PageParents#MAX_PARENTS} sources each at most). */
    static final int MAX_PAGES = 128;

    /**
     * @param keys the keys in the order of the children they were first found on
     * @param firstChild for each key, the position of the first child it was found on
     */
    private record Recent(List<String> keys, int[] firstChild, long at) {}

    private final LongSupplier nanoClock;
    /** Guarded by itself: access-ordered. */
    private final Map<String, Recent> entries = Lru.map(MAX_QUESTIONS);

    private record RecentPage(PageParents page, long at) {}

    /** Guarded by itself: access-ordered. */
    private final Map<String, RecentPage> pages = Lru.map(MAX_PAGES);

    RecentKeys(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /**
     * The keys the first {@code children} children of the last read of this question had, or {@code null} when there
     * was no such read in the last minute.
     *
     * @param question the parent index, query and key, and the child read, as one string
     * @param children how many children the read about to be sent reads
     */
    @Nullable
    List<String> get(String question, int children) {
        synchronized (entries) {
            Recent e = entries.get(question);
            if (e == null || nanoClock.getAsLong() - e.at() > MAX_AGE_NANOS) {
                return null;
            }
            int n = 0;
            while (n < e.keys().size() && e.firstChild()[n] < children) {
                n++;
            }
            return n == 0 ? null : e.keys().subList(0, n);
        }
    }

    /**
     * Remembers the keys of the children a read of this question found; none, or too many, forget the question.
     *
     * @param keysByChild each child's keys, in the read's order
     */
    void put(String question, List<? extends Collection<String>> keysByChild) {
        Set<String> keys = new LinkedHashSet<>();
        List<Integer> firstChild = new ArrayList<>();
        for (int c = 0; c < keysByChild.size(); c++) {
            for (String k : keysByChild.get(c)) {
                if (keys.add(k)) {
                    firstChild.add(c);
                }
            }
        }
        synchronized (entries) {
            if (keys.isEmpty() || keys.size() > MAX_KEYS) {
                entries.remove(question);
            } else {
                entries.put(
                        question,
                        new Recent(
                                List.copyOf(keys),
                                firstChild.stream().mapToInt(Integer::intValue).toArray(),
                                nanoClock.getAsLong()));
            }
        }
    }

    /** The parents on the page of the last keys-first answer to this question, or {@link PageParents#NONE}. */
    PageParents page(@Nullable String question) {
        synchronized (pages) {
            RecentPage e = pages.get(question);
            return e == null || nanoClock.getAsLong() - e.at() > MAX_AGE_NANOS ? PageParents.NONE : e.page();
        }
    }

    /** Remembers the parents on the page of a keys-first answer to this question; {@code null} forgets them. */
    void putPage(String question, @Nullable PageParents page) {
        synchronized (pages) {
            if (page == null || page.keys().isEmpty()) {
                pages.remove(question);
            } else {
                pages.put(question, new RecentPage(page, nanoClock.getAsLong()));
            }
        }
    }
}
