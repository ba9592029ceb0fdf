package io.github.esrel.plugin.lock.grant;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A page of a namespace's live grants, sorted by path, then token: every holder of each path it lists.
 *
 * @param grants the grants of the page; copied
 * @param next   the last path of the page when more paths follow (the {@code after} of the next page), else null
 */
public record GrantPage(List<Grant> grants, @Nullable String next) {

    /** Copies the grants. */
    public GrantPage {
        grants = List.copyOf(Objects.requireNonNull(grants, "grants cannot be null"));
    }
}
