package io.github.esrel.view;

import io.github.esrel.occ.Versioned;
import java.util.List;

/**
 * The source documents behind a page of view hits (seed 003's {@code pk__in}): the query ran on the
 * view index and returned ids, one {@code _mget} fetched the sources.
 *
 * @param hits the sources, in the order of the view hits, each with what a conditional write needs
 * @param totalViews the query's total hits on the view index
 * @param missing view hits whose source no longer exists (dropped from {@code hits})
 * @param roundTrips requests made: 2 (the search and the multi-get), 1 when nothing matched
 * @param <S> the source document type
 */
public record ViewPage<S>(List<Versioned<S>> hits, long totalViews, int missing, int roundTrips) {

    /**
     * Copies {@code hits}.
     *
     * @throws NullPointerException if {@code hits} is {@code null}
     */
    public ViewPage {
        hits = List.copyOf(hits);
    }
}
