package io.github.esrel.join;

import co.elastic.clients.elasticsearch._types.ElasticsearchException;
import co.elastic.clients.json.JsonpMappingException;
import io.github.esrel.internal.Reasons;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Turns Elasticsearch failures into {@link JoinException}s whose messages name the value and the fix. */
final class Errors {

    /** The module that provides painless; the integ-test distribution ships without it. */
    static final String PAINLESS_MODULE = "lang-painless";

    private Errors() {}

    /** True when a terms query carried more terms than the index's {@code index.max_terms_count}. */
    static boolean isTermsLimit(String reason) {
        return reason != null && reason.contains("index.max_terms_count");
    }

    /** True when the cluster cannot run painless scripts. */
    static boolean isPainlessMissing(String reason) {
        return reason != null && reason.contains("script_lang not supported [painless]");
    }

    static JoinException translate(
            String what, @Nullable String index, int status, String reason, @Nullable Throwable cause) {
        String hint = "";
        if (reason.contains("index_not_found_exception")) {
            hint = ": no such index [" + index + "]";
            return new JoinException(what + " failed" + hint + " (" + reason + ")", status, cause);
        }
        if (reason.contains("max_result_window") || reason.contains("Result window is too large")) {
            hint = ". Elasticsearch returns at most index.max_result_window hits (10,000 by default) per search: lower"
                    + " the join's pageSize/size or raise index.max_result_window on [" + index + "]";
        } else if (reason.contains("max_inner_result_window")) {
            hint = ". Lower childrenPerParent/perGroup or raise index.max_inner_result_window on [" + index + "]";
        } else if (reason.contains("collapse")
                || reason.contains("Fielddata is disabled")
                || reason.contains("doc_values")
                || reason.contains("Text fields are not optimised")) {
            hint = ". Keys and group fields must be keyword or numeric fields with doc values (e.g. a keyword"
                    + " sub-field such as user.name.raw), holding one value per document";
        } else if (isPainlessMissing(reason)) {
            hint = ". This cluster cannot run painless scripts (the " + PAINLESS_MODULE + " module is missing on some"
                    + " node; Elasticsearch's integ-test distribution ships without it)";
        }
        return new JoinException(what + " on [" + index + "] failed: " + reason + hint, status, cause);
    }

    static JoinException translate(String what, @Nullable String index, ElasticsearchException e) {
        return translate(what, index, e.status(), Reasons.of(e), e);
    }

    static JoinException io(String what, @Nullable String index, Exception e) {
        return new JoinException(what + " on [" + index + "] failed: " + e, 0, e);
    }

    static JoinException mapping(String what, @Nullable String index, JsonpMappingException e) {
        Throwable root = Reasons.root(e);
        return new JoinException(
                what + " on [" + index + "]: cannot map a source to the document class: " + e.getMessage()
                        + (root == e ? "" : " (" + root.getMessage() + ")"),
                0,
                e);
    }

    static String join(List<String> parts) {
        return String.join(", ", parts);
    }
}
