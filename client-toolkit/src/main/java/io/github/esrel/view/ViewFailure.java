package io.github.esrel.view;

/**
 * A view that could not be rebuilt. Its intent (if any) stays, so {@link MaterializedView#repair()}
 * tries again; the sweep finds it anyway because its stamps lag its sources.
 *
 * @param viewId the view's id (the source document's id)
 * @param status the HTTP status of the failed write, or 0 (sources kept changing through every
 *     validation round; a composer that threw)
 * @param reason what went wrong
 */
public record ViewFailure(String viewId, int status, String reason) {}
