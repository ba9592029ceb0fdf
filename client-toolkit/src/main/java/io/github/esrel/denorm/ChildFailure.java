package io.github.esrel.denorm;

import org.jspecify.annotations.Nullable;

/**
 * A child a propagation could not bring up to date, reported instead of dropped.
 *
 * @param childId the child's id
 * @param routing the child's routing, or {@code null}
 * @param status the HTTP status of the failed write (409 when the retry policy ran out against
 *     concurrent edits, 429 when rejections outlasted it, 400 for a document Elasticsearch refuses),
 *     or 0 when the copy could not be applied client-side (a copy target inside a non-object field)
 * @param reason what went wrong, in Elasticsearch's words where it answered
 */
public record ChildFailure(String childId, @Nullable String routing, int status, String reason) {}
