package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.FieldSort;
import co.elastic.clients.elasticsearch._types.FieldValue;
import co.elastic.clients.elasticsearch._types.SortOptions;
import co.elastic.clients.elasticsearch._types.SortOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Orders hits of several searches by their sort values the way Elasticsearch orders them within one
 * search, so that pages of several terms batches merge into one page. Score and field sorts only.
 */
final class SortValues {

    /** The sort sent when the caller gave none: by score, best first (explicit, so hits carry sort values). */
    static final List<SortOptions> BY_SCORE = List.of(SortOptions.of(s -> s.score(sc -> sc.order(SortOrder.Desc))));

    private SortValues() {}

    /** The caller's sort, or {@link #BY_SCORE}. */
    static List<SortOptions> orDefault(List<SortOptions> sort) {
        return sort == null || sort.isEmpty() ? BY_SCORE : sort;
    }

    /**
     * A comparator of sort-value lists for this sort. Missing values ({@code null}) come last whatever
     * the order, as with Elasticsearch's default {@code missing: _last}; strings compare by code point
     * (the order of their UTF-8 bytes, as Lucene compares terms).
     *
     * @throws IllegalArgumentException for sorts esrel cannot reproduce (script, geo distance)
     */
    static Comparator<List<FieldValue>> comparator(List<SortOptions> sort) {
        List<Boolean> descending = new ArrayList<>();
        for (SortOptions s : orDefault(sort)) {
            descending.add(descending(s));
        }
        return (a, b) -> {
            for (int i = 0; i < descending.size(); i++) {
                FieldValue x = i < a.size() ? a.get(i) : null;
                FieldValue y = i < b.size() ? b.get(i) : null;
                boolean xMissing = x == null || x.isNull();
                boolean yMissing = y == null || y.isNull();
                if (x == null || y == null || xMissing || yMissing) { // a null one is missing
                    if (xMissing != yMissing) {
                        return xMissing ? 1 : -1;
                    }
                    continue;
                }
                int c = compare(x, y);
                if (c != 0) {
                    return descending.get(i) ? -c : c;
                }
            }
            return 0;
        };
    }

    static boolean descending(SortOptions s) {
        if (s.isScore()) {
            return s.score().order() != SortOrder.Asc;
        }
        if (s.isDoc()) {
            return s.doc().order() == SortOrder.Desc;
        }
        if (s.isField()) {
            FieldSort f = s.field();
            if ("_score".equals(f.field())) {
                return f.order() != SortOrder.Asc;
            }
            return f.order() == SortOrder.Desc;
        }
        throw new IllegalArgumentException("esrel cannot merge the pages of several terms batches sorted by "
                + s._kind() + ": sort children by score or by fields, or raise index.max_terms_count so that one batch"
                + " holds every key");
    }

    static int compare(FieldValue x, FieldValue y) {
        if (isNumber(x) && isNumber(y)) {
            if (x.isLong() && y.isLong()) {
                return Long.compare(x.longValue(), y.longValue());
            }
            return Double.compare(number(x), number(y));
        }
        if (x.isString() && y.isString()) {
            return byCodePoint(x.stringValue(), y.stringValue());
        }
        if (x.isBoolean() && y.isBoolean()) {
            return Boolean.compare(x.booleanValue(), y.booleanValue());
        }
        return Integer.compare(x._kind().ordinal(), y._kind().ordinal());
    }

    private static boolean isNumber(FieldValue v) {
        return v.isLong() || v.isDouble();
    }

    private static double number(FieldValue v) {
        return v.isLong() ? v.longValue() : v.doubleValue();
    }

    static int byCodePoint(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
